import { Controller } from '@hotwired/stimulus'

// Plain forms: submit on Ctrl/⌘+Enter, cancel (follow the cancel link) on Esc.
export default class FormController extends Controller<HTMLFormElement> {
  static targets = ['cancel']
  declare readonly cancelTarget: HTMLAnchorElement
  declare readonly hasCancelTarget: boolean

  submit(): void {
    this.element.requestSubmit()
  }

  cancel(): void {
    if (this.hasCancelTarget) this.cancelTarget.click()
  }
}
