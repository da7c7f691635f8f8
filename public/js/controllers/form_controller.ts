import { Controller } from '@hotwired/stimulus'
import { returnFocusToComposer } from '../lib/focus.ts'

// Plain forms: submit on Ctrl/⌘+Enter, cancel (follow the cancel link) on Esc. With
// `return-focus`, focus goes back to the composer when the form leaves the page (saved,
// cancelled or deleted), instead of being dropped on the page.
export default class FormController extends Controller<HTMLFormElement> {
  static targets = ['cancel']
  static values = { returnFocus: Boolean }
  declare readonly cancelTarget: HTMLAnchorElement
  declare readonly hasCancelTarget: boolean
  declare readonly returnFocusValue: boolean

  disconnect(): void {
    if (this.returnFocusValue) returnFocusToComposer()
  }

  submit(): void {
    this.element.requestSubmit()
  }

  cancel(): void {
    if (this.hasCancelTarget) this.cancelTarget.click()
  }
}
