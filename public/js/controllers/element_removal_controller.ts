import { Controller } from '@hotwired/stimulus'

// Removes its element (the flash, once its animation ends).
export default class ElementRemovalController extends Controller {
  remove(): void {
    this.element.remove()
  }
}
