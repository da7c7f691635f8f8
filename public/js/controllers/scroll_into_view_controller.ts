import { Controller } from '@hotwired/stimulus'

// Brings a freshly loaded form (edit a message, add a boost) into view, all of it, above the
// composer, at once (a smooth scroll is cut short by the editor taking focus). The form keeps growing for a moment after it arrives (the editor sets itself up and
// fills in), so it is brought into view again as it grows, for GROWING_MS: otherwise the newest
// message's Delete, Cancel and Save end up under the composer. Any part of the scroller the
// composer covers does not count as in view.
export default class ScrollIntoViewController extends Controller<HTMLElement> {
  private observer: ResizeObserver | null = null
  private timer: ReturnType<typeof setTimeout> | undefined

  connect(): void {
    let frame = 0
    const bring = (): void => {
      cancelAnimationFrame(frame)
      frame = requestAnimationFrame(() => {
        this.element.style.scrollMarginBlockEnd = `${coveredByComposer(this.element) + MARGIN_PX}px`
        this.element.scrollIntoView({ behavior: 'instant', block: 'nearest' })
      })
    }
    this.observer = new ResizeObserver(bring)
    this.observer.observe(this.element)
    this.element.addEventListener('focusin', bring)
    this.timer = setTimeout(() => {
      this.element.removeEventListener('focusin', bring)
      this.stop()
    }, GROWING_MS)
    bring()
  }

  disconnect(): void {
    this.stop()
  }

  private stop(): void {
    clearTimeout(this.timer)
    this.observer?.disconnect()
    this.observer = null
  }
}

const MARGIN_PX = 8
const GROWING_MS = 1_500

// How much of the bottom of the element's scroller the composer covers.
function coveredByComposer(element: HTMLElement): number {
  const composer = document.querySelector('#composer')
  if (!composer || composer.contains(element)) return 0
  const scroller = scrollerOf(element)
  const bottom = scroller ? scroller.getBoundingClientRect().bottom : window.innerHeight
  return Math.max(0, bottom - composer.getBoundingClientRect().top)
}

function scrollerOf(element: HTMLElement): HTMLElement | null {
  for (let parent = element.parentElement; parent; parent = parent.parentElement) {
    const overflow = getComputedStyle(parent).overflowY
    if ((overflow === 'auto' || overflow === 'scroll') && parent.scrollHeight > parent.clientHeight) return parent
  }
  return null
}
