import { Controller } from '@hotwired/stimulus'

// A <details> menu: opens above its button when there is no room below, and closes on Esc, on
// a click elsewhere, or when one of its actions is used.
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
    if (box.bottom > window.innerHeight - 8) this.element.classList.add(this.orientationTopClass)
  }

  close(): void {
    this.element.open = false
  }

  closeOnClickOutside(event: Event): void {
    if (this.element.open && !this.element.contains(event.target as Node)) this.close()
  }
}
