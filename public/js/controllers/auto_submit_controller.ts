import { Controller } from '@hotwired/stimulus'

// Submits its form as soon as it appears (the session transfer page).
export default class AutoSubmitController extends Controller<HTMLFormElement> {
  connect(): void {
    this.element.requestSubmit()
  }
}
