import { Controller } from '@hotwired/stimulus'
import { nextTick } from '../helpers/timing.ts'
import { ClientMessage } from '../models/client_message.ts'
import { MessageFormatter } from '../models/message_formatter.ts'
import { MessagePaginator } from '../models/message_paginator.ts'
import { ScrollManager } from '../models/scroll_manager.ts'

interface StreamRenderEvent extends CustomEvent {
  detail: { newStream: Element; render: (stream: Element) => Promise<void> }
}

// The room's message list: formats messages for this viewer, pages through history, shows
// pending messages at once, scrolls along when the reader is at the bottom (or offers a jump to
// the newest), keeps live appends in time order and plays /play sounds as they arrive.
export default class MessagesController extends Controller<HTMLElement> {
  static targets = ['messages', 'message', 'template', 'latest', 'body']
  static classes = ['firstOfDay', 'formatted', 'me', 'mentioned', 'threaded']
  static values = { pageUrl: String, highlight: String }

  declare readonly messagesTarget: HTMLElement
  declare readonly templateTarget: HTMLElement
  declare readonly latestTarget: HTMLButtonElement
  declare readonly hasLatestTarget: boolean
  declare readonly pageUrlValue: string
  declare readonly highlightValue: string
  declare readonly hasHighlightValue: boolean
  declare readonly firstOfDayClass: string
  declare readonly formattedClass: string
  declare readonly meClass: string
  declare readonly mentionedClass: string
  declare readonly threadedClass: string

  private formatter!: MessageFormatter
  private paginator!: MessagePaginator
  private scroll!: ScrollManager
  private clientMessage!: ClientMessage

  initialize(): void {
    this.formatter = new MessageFormatter({
      firstOfDay: this.firstOfDayClass, formatted: this.formattedClass, me: this.meClass, mentioned: this.mentionedClass, threaded: this.threadedClass,
    })
  }

  connect(): void {
    this.scroll = new ScrollManager(this.messagesTarget)
    this.clientMessage = new ClientMessage(this.templateTarget)
    this.paginator = new MessagePaginator(this.messagesTarget, this.pageUrlValue, this.scroll, (inserted) => this.formatInserted(inserted))
    this.formatter.formatAll(this.messagesTarget)
    const highlighted = this.hasHighlightValue ? document.getElementById(`message_${this.highlightValue}`) ?? this.messagesTarget.querySelector(`[data-message-id="${this.highlightValue}"]`) : null
    if (highlighted) {
      highlighted.classList.add('search-highlight')
      this.paginator.upToDate = false
      void this.scroll.scrollIntoView(highlighted)
    } else {
      void this.scroll.autoscroll(true)
    }
    this.messagesTarget.addEventListener('scroll', this.scrolled, { passive: true })
    this.paginator.monitor()
  }

  disconnect(): void {
    this.paginator.disconnect()
    this.messagesTarget.removeEventListener('scroll', this.scrolled)
  }

  messageTargetConnected(message: HTMLElement): void {
    this.formatter.format(message)
  }

  // Actions

  beforeStreamRender(event: StreamRenderEvent): void {
    const stream = event.detail.newStream
    if (stream.getAttribute('target') !== this.messagesTarget.id) return
    const render = event.detail.render
    if (!this.paginator.upToDate) {
      this.showLatestButton()
      return
    }
    event.detail.render = async (streamElement: Element) => {
      const scrolled = await this.scroll.autoscroll(false, async () => {
        await render(streamElement)
        await nextTick()
        this.positionLastMessage()
        this.playSoundForLastMessage(stream)
        this.paginator.trimExcessMessages(true)
      })
      if (!scrolled) this.showLatestButton()
    }
  }

  async returnToLatest(): Promise<void> {
    if (this.hasLatestTarget) this.latestTarget.hidden = true
    if (!this.paginator.upToDate) {
      window.location.href = window.location.pathname.replace(/\/@\d+$/, '')
      return
    }
    await this.scroll.autoscroll(true)
  }

  editMyLastMessage(event: KeyboardEvent): void {
    const editor = document.querySelector<LexxyEditorElement>('#composer lexxy-editor')
    if (!editor || document.activeElement?.closest('lexxy-editor') !== editor) return
    if (editor.toString().trim() !== '' || !this.paginator.upToDate) return
    const mine = [...this.messagesTarget.querySelectorAll<HTMLElement>(`.${this.meClass}:not(.message--pending)`)].at(-1)
    const edit = mine?.querySelector<HTMLElement>('.message__edit-btn')
    if (edit) {
      event.preventDefault()
      edit.click()
    }
  }

  // Outlet actions, called by the composer

  async insertPendingMessage(clientMessageId: string, text: string): Promise<void> {
    const message = this.clientMessage.render(clientMessageId, text)
    await this.scroll.autoscroll(true, async () => {
      this.messagesTarget.append(message)
      this.formatter.format(message)
    })
  }

  failPendingMessage(clientMessageId: string): void {
    this.clientMessage.failed(clientMessageId)
  }

  // Private

  private scrolled = (): void => {
    if (this.hasLatestTarget && !this.latestTarget.hidden && this.scroll.nearBottom && this.paginator.upToDate) this.latestTarget.hidden = true
  }

  private showLatestButton(): void {
    if (this.hasLatestTarget) this.latestTarget.hidden = false
  }

  private formatInserted(messages: HTMLElement[]): void {
    for (const message of messages) this.formatter.format(message)
  }

  // A live append can arrive out of order (two people posting at once); move it up to where its
  // time says it belongs.
  private positionLastMessage(): void {
    const messages = [...this.messagesTarget.querySelectorAll<HTMLElement>(':scope > .message')]
    const last = messages.at(-1)
    if (!last) return
    const value = Number(last.dataset.sortValue ?? last.dataset.messageTimestamp)
    let before: HTMLElement | null = null
    for (let i = messages.length - 2; i >= 0; i--) {
      const other = messages[i]!
      if (Number(other.dataset.sortValue ?? other.dataset.messageTimestamp) > value && !other.classList.contains('message--pending')) before = other
      else break
    }
    if (before) {
      before.before(last)
      this.formatter.formatNeighbourhood(last)
    }
    this.formatter.format(last)
  }

  private playSoundForLastMessage(stream: Element): void {
    const template = stream.querySelector('template')
    const sound = template?.content.querySelector<HTMLElement>('.sound[data-sound-name-value]')
    if (!sound) return
    const id = template!.content.querySelector<HTMLElement>('.message')?.id
    const live = id ? document.getElementById(id)?.querySelector('.sound') : null
    live?.dispatchEvent(new CustomEvent('messages:play', { bubbles: false }))
  }
}
