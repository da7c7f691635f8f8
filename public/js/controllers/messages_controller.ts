import { Controller } from '@hotwired/stimulus'
import { nextTick } from '../helpers/timing.ts'
import { highlightCodeBlocks } from '../lib/code_highlighting.ts'
import { scrollCodeByKeyboard } from '../lib/scrollable_code.ts'
import { ClientMessage } from '../models/client_message.ts'
import { MessageFormatter } from '../models/message_formatter.ts'
import { MessagePaginator } from '../models/message_paginator.ts'
import { ScrollManager } from '../models/scroll_manager.ts'
import { Current } from '../lib/current.ts'

interface StreamRenderEvent extends CustomEvent {
  detail: { newStream: Element; render: (stream: Element) => Promise<void> }
}

// The room's message list: formats messages for this viewer, pages through history, shows
// pending messages at once, scrolls along when the reader is at the bottom (or offers a jump to
// the newest), keeps live appends in time order and plays /play sounds as they arrive.
export default class MessagesController extends Controller<HTMLElement> {
  static targets = ['messages', 'message', 'template', 'latest', 'body', 'announcer']
  static classes = ['firstOfDay', 'formatted', 'me', 'mentioned', 'threaded']
  static values = { pageUrl: String, highlight: String }

  declare readonly messagesTarget: HTMLElement
  declare readonly templateTarget: HTMLElement
  declare readonly latestTarget: HTMLButtonElement
  declare readonly hasLatestTarget: boolean
  declare readonly announcerTarget: HTMLElement
  declare readonly hasAnnouncerTarget: boolean
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
  // Whether the reader was at the newest message when they last scrolled: if so, the list stays
  // there when it gets shorter (files listed above the composer, a taller composer, a keyboard).
  private atBottom = false
  private readonly resized = new ResizeObserver(() => {
    if (this.atBottom) this.messagesTarget.scrollTop = this.messagesTarget.scrollHeight
  })
  // The markup each server copy on the page arrived as. The post's answer and the room's
  // broadcast bring the same copy, and the second must not replace the first: an open menu, a
  // focused button or a selection in it would be lost for nothing.
  private readonly arrivedAs = new WeakMap<Element, string>()

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
    this.resized.observe(this.messagesTarget)
    this.paginator.monitor()
  }

  disconnect(): void {
    this.paginator.disconnect()
    this.messagesTarget.removeEventListener('scroll', this.scrolled)
    this.resized.disconnect()
  }

  messageTargetConnected(message: HTMLElement): void {
    this.formatter.format(message)
  }

  // A message's body connects on page load, over the cable, with a page of history and after an edit.
  bodyTargetConnected(body: HTMLElement): void {
    highlightCodeBlocks(body)
    scrollCodeByKeyboard(body)
  }

  // Actions

  beforeStreamRender(event: StreamRenderEvent): void {
    const stream = event.detail.newStream
    if (stream.getAttribute('target') !== this.messagesTarget.id) return
    if (stream.getAttribute('action') === 'append') this.announce(stream)
    const render = event.detail.render
    if (!this.paginator.upToDate) {
      this.showLatestButton()
      return
    }
    event.detail.render = async (streamElement: Element) => {
      const scrolled = await this.scroll.autoscroll(false, async () => {
        const soundMessageId = this.soundMessageId(stream)
        const { replaced, handled } = stream.getAttribute('action') === 'append' ? this.replaceInPlace(streamElement) : { replaced: [], handled: 0 }
        const appends = handled === 0 || (streamElement.querySelector('template')?.content.childElementCount ?? 0) > 0
        await render(streamElement)
        await nextTick()
        for (const message of replaced) this.formatter.formatNeighbourhood(message)
        if (appends) this.positionLastMessage()
        this.playSound(soundMessageId)
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

  insertPendingMessage(clientMessageId: string, text: string): Promise<void> {
    return this.appendPending(this.clientMessage.render(clientMessageId, text))
  }

  insertPendingUpload(clientMessageId: string, filename: string): Promise<void> {
    return this.appendPending(this.clientMessage.renderUpload(clientMessageId, filename))
  }

  updatePendingUpload(clientMessageId: string, percent: number): void {
    this.clientMessage.progress(clientMessageId, percent)
  }

  failPendingMessage(clientMessageId: string, reason?: string | null, retry?: () => void): void {
    this.clientMessage.failed(clientMessageId, reason, retry)
  }

  clientWaiting(clientMessageId: string): void {
    this.clientMessage.waiting(clientMessageId)
  }

  // Private

  private async appendPending(message: HTMLElement): Promise<void> {
    await this.scroll.autoscroll(true, async () => {
      this.messagesTarget.append(message)
      this.formatter.format(message)
    })
  }

  // The server's copy of a message already on the page (the pending copy, or the same message
  // from the other of the post's answer and the room's broadcast) takes its place, where Turbo's
  // append would move it to the end: files sent together keep their order as each one lands.
  // A copy identical to the one already placed, or older than it (a post's answer that lost the
  // race with the edit's broadcast), is dropped. Returns the messages placed and how many of the
  // stream's messages were dealt with; what is left in the stream is appended as usual.
  private replaceInPlace(stream: Element): { replaced: HTMLElement[], handled: number } {
    const template = stream.querySelector<HTMLTemplateElement>(':scope > template')
    const replaced: HTMLElement[] = []
    let handled = 0
    for (const incoming of [...template?.content.children ?? []] as HTMLElement[]) {
      const existing = incoming.id ? this.messagesTarget.querySelector<HTMLElement>(`:scope > #${CSS.escape(incoming.id)}`) : null
      if (!existing) continue
      handled++
      const html = incoming.outerHTML
      incoming.remove()
      if (this.arrivedAs.get(existing) === html || olderThan(incoming, existing)) continue
      const message = document.importNode(incoming, true)
      existing.replaceWith(message)
      this.arrivedAs.set(message, html)
      replaced.push(message)
    }
    return { replaced, handled }
  }

  // Says who wrote what in the room's polite live region, for messages other people post (read
  // from the stream itself, so it is said whether or not the reader is scrolled to the newest).
  private announce(stream: Element): void {
    if (!this.hasAnnouncerTarget) return
    const messages = [...(stream.querySelector('template')?.content.querySelectorAll<HTMLElement>('.message[data-message-id]') ?? [])]
    const said = messages
      .filter((message) => Number(message.dataset.userId) !== Current.userId)
      .map((message) => {
        const author = message.querySelector('.message__author')?.textContent?.trim() ?? ''
        const body = message.querySelector('[data-reply-target="body"]')?.textContent?.replace(/\s+/g, ' ').trim() || 'a file'
        return `${author}: ${body}`
      })
    if (said.length > 0) this.announcerTarget.textContent = said.join('. ')
  }

  private scrolled = (): void => {
    this.atBottom = this.scroll.nearBottom && this.paginator.upToDate
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

  // The id of the message in a stream that carries a /play sound, read before the stream renders.
  private soundMessageId(stream: Element): string | null {
    const template = stream.querySelector('template')
    if (!template?.content.querySelector('.sound[data-sound-name-value]')) return null
    return template.content.querySelector<HTMLElement>('.message')?.id || null
  }

  private playSound(messageId: string | null): void {
    const live = messageId ? document.getElementById(messageId)?.querySelector('.sound') : null
    live?.dispatchEvent(new CustomEvent('messages:play', { bubbles: false }))
  }
}

function olderThan(incoming: HTMLElement, existing: HTMLElement): boolean {
  const [a, b] = [incoming.dataset.messageUpdatedAt, existing.dataset.messageUpdatedAt]
  return a !== undefined && b !== undefined && Number(a) < Number(b)
}
