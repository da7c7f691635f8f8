import { Controller } from '@hotwired/stimulus'

// Copies a value (a message's permalink) and flashes the button green.
export default class CopyToClipboardController extends Controller<HTMLElement> {
  static values = { content: String }
  static classes = ['success']
  declare readonly contentValue: string
  declare readonly successClass: string

  async copy(event: Event): Promise<void> {
    event.preventDefault()
    try {
      await navigator.clipboard.writeText(this.contentValue)
    } catch {
      copyWithSelection(this.contentValue)
    }
    this.element.classList.remove(this.successClass)
    void this.element.offsetWidth
    this.element.classList.add(this.successClass)
    setTimeout(() => this.element.classList.remove(this.successClass), 1200)
  }
}

function copyWithSelection(text: string): void {
  const field = document.createElement('textarea')
  field.value = text
  field.setAttribute('readonly', '')
  field.style.position = 'fixed'
  field.style.opacity = '0'
  document.body.append(field)
  field.select()
  document.execCommand('copy')
  field.remove()
}
