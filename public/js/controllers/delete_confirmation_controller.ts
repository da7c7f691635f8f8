import { Controller } from '@hotwired/stimulus'

// Deleting from the edit form asks first, in the message itself rather than in the browser's
// confirm(): Delete shows the question with "Keep it" (focused, the safe answer) and "Delete
// message"; Keep it or Esc hides it again and gives focus back to Delete.
export default class DeleteConfirmationController extends Controller<HTMLElement> {
  static targets = ['ask', 'confirmation', 'keep']
  declare readonly askTarget: HTMLButtonElement
  declare readonly confirmationTarget: HTMLFormElement
  declare readonly keepTarget: HTMLButtonElement

  ask(): void {
    this.confirmationTarget.hidden = false
    this.askTarget.setAttribute('aria-expanded', 'true')
    this.keepTarget.focus()
  }

  keep(event?: Event): void {
    event?.stopPropagation()
    this.confirmationTarget.hidden = true
    this.askTarget.setAttribute('aria-expanded', 'false')
    this.askTarget.focus()
  }
}
