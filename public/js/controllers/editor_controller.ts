import { Controller } from '@hotwired/stimulus'

// A Lexxy editor puts its text box in the page at once but hands it to Lexical a frame later,
// and Lexical then redraws the box from the editor's own value. Anything typed, pasted or filled
// in before that is wiped and never reaches the form, so the box stays read-only until then.
export default class EditorController extends Controller<HTMLElement> {
  connect(): void {
    const box = this.box
    if (!box || box.hasAttribute('data-lexical-editor')) return
    box.contentEditable = 'false'
    box.setAttribute('aria-readonly', 'true')
    this.element.addEventListener('lexxy:initialize', this.ready)
  }

  disconnect(): void {
    this.element.removeEventListener('lexxy:initialize', this.ready)
  }

  private ready = (): void => {
    this.element.removeEventListener('lexxy:initialize', this.ready)
    const box = this.box
    if (!box) return
    box.contentEditable = 'true'
    box.removeAttribute('aria-readonly')
  }

  private get box(): HTMLElement | null {
    return this.element.querySelector(':scope > .lexxy-editor__content')
  }
}
