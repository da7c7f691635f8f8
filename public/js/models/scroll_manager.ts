import { nextFrame } from '../helpers/timing.ts'

export const AUTOSCROLL_THRESHOLD_PX = 100

// Every scroll change to the message list goes through one promise chain, so a page of history
// being prepended and a new message being appended never fight over scrollTop.
export class ScrollManager {
  private pending: Promise<unknown> = Promise.resolve()

  constructor(private readonly container: HTMLElement) {}

  get nearBottom(): boolean {
    const { scrollTop, scrollHeight, clientHeight } = this.container
    return scrollHeight - scrollTop - clientHeight <= AUTOSCROLL_THRESHOLD_PX
  }

  // Runs render (if any) and then scrolls to the bottom when forced or when the reader was
  // already near it. Resolves to whether it scrolled.
  autoscroll(force: boolean, render: () => Promise<void> = async () => {}): Promise<boolean> {
    return this.enqueue(async () => {
      const wasNearBottom = this.nearBottom
      await render()
      if (!force && !wasNearBottom) return false
      await nextFrame()
      this.container.scrollTop = this.container.scrollHeight
      return true
    })
  }

  // Keeps what the reader sees in place while content is added above or below.
  keepScroll(top: boolean, render: () => Promise<void>): Promise<void> {
    return this.enqueue(async () => {
      const { scrollTop, scrollHeight } = this.container
      await render()
      if (top) this.container.scrollTop = scrollTop + (this.container.scrollHeight - scrollHeight)
    })
  }

  scrollIntoView(element: Element): Promise<void> {
    return this.enqueue(async () => {
      await nextFrame()
      element.scrollIntoView({ block: 'center' })
    })
  }

  private enqueue<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.pending.then(operation, operation)
    this.pending = result.catch(() => undefined)
    return result
  }
}
