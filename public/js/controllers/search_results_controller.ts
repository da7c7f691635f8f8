import { Controller } from '@hotwired/stimulus'
import { highlightCodeBlocks } from '../lib/code_highlighting.ts'
import { scrollCodeByKeyboard } from '../lib/scrollable_code.ts'
import { MessageFormatter } from '../models/message_formatter.ts'

// Search results and the inbox: formatted for the viewer without threading (each shows its
// author and room). Search results are oldest first and scrolled to the newest; the inbox is
// newest first and stays at the top.
export default class SearchResultsController extends Controller<HTMLElement> {
  static targets = ['messages', 'message']
  static classes = ['me', 'threaded', 'mentioned', 'formatted']
  static values = { newestFirst: Boolean }
  declare readonly newestFirstValue: boolean
  declare readonly meClass: string
  declare readonly mentionedClass: string
  declare readonly formattedClass: string

  private formatter!: MessageFormatter

  initialize(): void {
    this.formatter = new MessageFormatter(
      { firstOfDay: 'message--first-of-day', formatted: this.formattedClass, me: this.meClass, mentioned: this.mentionedClass, threaded: 'message--threaded' },
      { threading: false },
    )
  }

  connect(): void {
    if (this.newestFirstValue) return
    requestAnimationFrame(() => (this.element.scrollTop = this.element.scrollHeight))
  }

  messageTargetConnected(message: HTMLElement): void {
    this.formatter.format(message)
    highlightCodeBlocks(message)
    scrollCodeByKeyboard(message)
  }
}
