import { Controller } from '@hotwired/stimulus'
import { highlightCodeBlocks } from '../lib/code_highlighting.ts'
import { scrollCodeByKeyboard } from '../lib/scrollable_code.ts'
import { MessageFormatter } from '../models/message_formatter.ts'

// The Saved page: each message formatted for the viewer without threading (each shows its author,
// room and day), newest saved at the top, where the page opens.
export default class SavedMessagesController extends Controller<HTMLElement> {
  static classes = ['me', 'mentioned', 'formatted']
  declare readonly meClass: string
  declare readonly mentionedClass: string
  declare readonly formattedClass: string

  connect(): void {
    const formatter = new MessageFormatter(
      { firstOfDay: 'message--first-of-day', formatted: this.formattedClass, me: this.meClass, mentioned: this.mentionedClass, threaded: 'message--threaded' },
      { threading: false },
    )
    for (const message of this.element.querySelectorAll<HTMLElement>(':scope > .message')) {
      formatter.format(message)
      highlightCodeBlocks(message)
      scrollCodeByKeyboard(message)
    }
  }
}
