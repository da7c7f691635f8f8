import { Controller } from '@hotwired/stimulus'
import { composerEditor } from '../lib/focus.ts'

// "Skip to the message box": past the nav and every message's buttons, straight into the
// composer, ready to type (an anchor alone would only move where the next Tab starts).
export default class SkipLinkController extends Controller {
  focusComposer(event: Event): void {
    const editor = composerEditor()
    if (!editor) return
    event.preventDefault()
    editor.focus()
  }
}
