import { Controller } from '@hotwired/stimulus'

// Toggles one class on its element (the sidebar's "open" on phones).
export default class ToggleClassController extends Controller<HTMLElement> {
  static classes = ['toggle']
  declare readonly toggleClass: string

  toggle(): void {
    this.element.classList.toggle(this.toggleClass)
  }
}
