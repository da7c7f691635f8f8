import { Controller } from '@hotwired/stimulus'

// A <details> menu: opens above its button when there is no room below and more room above, and
// closes on Esc, on a click elsewhere, or when one of its actions is used (focus returns to its button). "Room" is what is
// visible of the window and of the scrolling box the menu sits in; the larger side is given to the
// menu as --popup-room, for a menu that scrolls rather than run off screen.
export default class PopupController extends Controller<HTMLDetailsElement> {
  static targets = ['menu']
  static classes = ['orientationTop']
  declare readonly menuTarget: HTMLElement
  declare readonly hasMenuTarget: boolean
  declare readonly orientationTopClass: string

  toggle(): void {
    if (!this.element.open || !this.hasMenuTarget) return
    this.element.classList.remove(this.orientationTopClass)
    const box = this.menuTarget.getBoundingClientRect()
    const visible = this.visibleBounds()
    const anchor = this.element.getBoundingClientRect()
    const below = visible.bottom - anchor.bottom - 8
    const above = anchor.top - visible.top - 8
    if (box.bottom > visible.bottom - 8 && above > below) this.element.classList.add(this.orientationTopClass)
    this.element.style.setProperty('--popup-room', `${Math.max(above, below, 120)}px`)
  }

  // The window, cut down to the nearest ancestor that scrolls or clips.
  private visibleBounds(): { top: number; bottom: number } {
    let top = 0
    let bottom = window.innerHeight
    for (let node = this.element.parentElement; node && node !== document.body; node = node.parentElement) {
      if (!/(auto|scroll|hidden|clip)/.test(getComputedStyle(node).overflowY)) continue
      const rect = node.getBoundingClientRect()
      top = Math.max(top, rect.top)
      bottom = Math.min(bottom, rect.bottom)
      break
    }
    return { top, bottom }
  }

  // Focus inside the menu would be lost as it hides; it goes back to the menu's own button.
  close(): void {
    const hadFocus = this.element.contains(document.activeElement)
    this.element.open = false
    if (hadFocus) this.element.querySelector<HTMLElement>('summary')?.focus({ preventScroll: true })
  }

  closeOnClickOutside(event: Event): void {
    if (this.element.open && !this.element.contains(event.target as Node)) this.close()
  }
}
