import { Controller } from '@hotwired/stimulus'

// Reply: quotes the message into the composer (as a blockquote with a cite linking back to it),
// and makes links inside the message open in a new tab.
export default class ReplyController extends Controller<HTMLElement> {
  static targets = ['author', 'body', 'link']
  static outlets = ['composer']
  declare readonly authorTarget: HTMLElement
  declare readonly bodyTarget: HTMLElement
  declare readonly hasBodyTarget: boolean
  declare readonly linkTarget: HTMLAnchorElement

  bodyTargetConnected(body: HTMLElement): void {
    for (const link of body.querySelectorAll<HTMLAnchorElement>('a[href]')) {
      if (link.origin !== location.origin) {
        link.target = '_blank'
        link.rel = 'noopener noreferrer'
      }
    }
  }

  reply(): void {
    const editor = document.querySelector<LexxyEditorElement>('#composer lexxy-editor')
    if (!editor || !this.hasBodyTarget) return
    const quote = document.createElement('blockquote')
    quote.textContent = (this.bodyTarget.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 500)
    const cite = document.createElement('cite')
    const link = document.createElement('a')
    link.href = this.linkTarget.href
    link.textContent = this.authorTarget.textContent ?? ''
    cite.append(link)
    const paragraph = document.createElement('p')
    paragraph.append(cite)
    editor.value = quote.outerHTML + paragraph.outerHTML + '<p></p>'
    this.element.querySelector('details')?.removeAttribute('open')
    editor.focus()
  }
}
