import { Controller } from '@hotwired/stimulus'
import { finePointer, typingElsewhere } from '../lib/focus.ts'
import { keepWordsAfterTheFence } from '../lib/code_fence.ts'

// A Lexxy editor puts its text box in the page at once but hands it to Lexical a frame later,
// and Lexical then redraws the box from the editor's own value. Anything typed, pasted or filled
// in before that is wiped and never reaches the form, so the box stays read-only until then.
// `autofocus` focuses it once it is ready: "always" (the edit form, opened to be typed in), or
// "desktop" (the composer: on a device with a fine pointer, unless another field is being typed in;
// a link clicked in the sidebar, which stays on the page, keeps no claim on the keyboard).
export default class EditorController extends Controller<LexxyEditorElement> {
  static values = { autofocus: String }
  declare readonly autofocusValue: string
  private stopWatchingFences: (() => void) | null = null

  connect(): void {
    const box = this.box
    if (box?.hasAttribute('data-lexical-editor')) {
      this.watchFences()
      return this.focusIfAsked()
    }
    if (box) {
      box.contentEditable = 'false'
      box.setAttribute('aria-readonly', 'true')
    }
    this.element.addEventListener('lexxy:initialize', this.ready)
  }

  disconnect(): void {
    this.element.removeEventListener('lexxy:initialize', this.ready)
    this.stopWatchingFences?.()
    this.stopWatchingFences = null
  }

  private ready = (): void => {
    this.element.removeEventListener('lexxy:initialize', this.ready)
    const box = this.box
    if (box) {
      box.contentEditable = 'true'
      box.removeAttribute('aria-readonly')
    }
    this.watchFences()
    this.focusIfAsked()
  }

  private watchFences(): void {
    const editor = this.element.editor
    if (editor && !this.stopWatchingFences) this.stopWatchingFences = keepWordsAfterTheFence(editor)
  }

  // A frame later: Lexical positions the caret in an update of its own, after initialising.
  private focusIfAsked(): void {
    if (!this.autofocusValue) return
    requestAnimationFrame(() => {
      if (this.autofocusValue === 'always' || (this.autofocusValue === 'desktop' && finePointer() && !typingElsewhere())) this.element.focus()
    })
  }

  private get box(): HTMLElement | null {
    return this.element.querySelector(':scope > .lexxy-editor__content')
  }
}
