import { serverFragment } from '../helpers/html.ts'
import type { ScrollManager } from './scroll_manager.ts'

export const MAX_MESSAGES = 300
export const MAX_MESSAGES_LEEWAY = 20

// Loads older messages when the first one scrolls into view and newer ones when the last one
// does (after jumping back from history), and keeps at most 300 (+20 leeway) in the page by
// trimming the far end.
export class MessagePaginator {
  private observer: IntersectionObserver | null = null
  private loading = false
  private reachedStart = false
  upToDate = true

  constructor(
    private readonly container: HTMLElement,
    private readonly pageUrl: string,
    private readonly scroll: ScrollManager,
    private readonly onInsert: (messages: HTMLElement[]) => void,
  ) {}

  monitor(): void {
    this.observer = new IntersectionObserver((entries) => this.intersected(entries), { root: this.container, rootMargin: '400px 0px' })
    this.observe()
  }

  disconnect(): void {
    this.observer?.disconnect()
    this.observer = null
  }

  async catchUp(): Promise<void> {
    while (!this.upToDate) {
      if (!(await this.loadAfter())) break
    }
  }

  trimExcessMessages(fromTop: boolean): void {
    const messages = this.messages()
    const excess = messages.length - MAX_MESSAGES
    if (excess <= MAX_MESSAGES_LEEWAY) return
    const doomed = fromTop ? messages.slice(0, excess) : messages.slice(-excess)
    for (const message of doomed) message.remove()
    if (fromTop) this.reachedStart = false
    else this.upToDate = false
    this.observe()
  }

  private messages(): HTMLElement[] {
    return [...this.container.querySelectorAll<HTMLElement>(':scope > .message[data-message-id]')]
  }

  private observe(): void {
    if (!this.observer) return
    this.observer.disconnect()
    const messages = this.messages()
    if (messages[0]) this.observer.observe(messages[0])
    const last = messages.at(-1)
    if (last && last !== messages[0]) this.observer.observe(last)
  }

  private async intersected(entries: IntersectionObserverEntry[]): Promise<void> {
    const messages = this.messages()
    for (const entry of entries) {
      if (!entry.isIntersecting || this.loading) continue
      if (entry.target === messages[0] && !this.reachedStart) await this.loadBefore()
      else if (entry.target === messages.at(-1) && !this.upToDate) await this.loadAfter()
    }
  }

  private loadBefore(): Promise<boolean> {
    return this.loadPage('before')
  }

  private loadAfter(): Promise<boolean> {
    return this.loadPage('after')
  }

  // One page of older ('before' the first message shown) or newer ('after' the last) messages.
  // Reaching either end is remembered, so the observer stops asking for more that way.
  private async loadPage(direction: 'before' | 'after'): Promise<boolean> {
    const older = direction === 'before'
    const anchor = older ? this.messages()[0] : this.messages().at(-1)
    if (!anchor) return false
    const reachedEnd = () => {
      if (older) this.reachedStart = true
      else this.upToDate = true
    }
    const html = await this.fetchPage(`${direction}=${anchor.dataset.messageId}`)
    if (html === null) {
      reachedEnd()
      return false
    }
    let inserted: HTMLElement[] = []
    await this.scroll.keepScroll(older, async () => {
      inserted = this.insert(html, older ? 'afterbegin' : 'beforeend', anchor)
      this.trimExcessMessages(!older)
      this.onInsert(inserted)
    })
    if (inserted.length === 0) reachedEnd()
    this.observe()
    return inserted.length > 0
  }

  private insert(html: string, where: 'afterbegin' | 'beforeend', anchor: HTMLElement): HTMLElement[] {
    const fragment = serverFragment(html)
    const inserted = ([...fragment.children] as HTMLElement[]).filter((m) => m.classList.contains('message') && !document.getElementById(m.id))
    for (const message of inserted) {
      if (where === 'afterbegin') anchor.before(message)
      else this.container.append(message)
    }
    return inserted
  }

  private async fetchPage(query: string): Promise<string | null> {
    this.loading = true
    try {
      const response = await fetch(`${this.pageUrl}?${query}`, { headers: { accept: 'text/html' }, credentials: 'same-origin' })
      if (response.status === 204 || !response.ok) return null
      const html = await response.text()
      return html.trim() === '' ? null : html
    } finally {
      this.loading = false
    }
  }
}
