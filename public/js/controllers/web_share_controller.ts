import { Controller } from '@hotwired/stimulus'

// navigator.share for a title, text, URL or file; hidden where sharing is unsupported.
export default class WebShareController extends Controller<HTMLElement> {
  static values = { title: String, text: String, url: String, file: String }
  declare readonly titleValue: string
  declare readonly textValue: string
  declare readonly urlValue: string
  declare readonly fileValue: string

  connect(): void {
    this.element.hidden = typeof navigator.canShare !== 'function'
  }

  async share(): Promise<void> {
    const data: ShareData = { title: this.titleValue || undefined, text: this.textValue || undefined, url: this.urlValue || undefined }
    try {
      if (this.fileValue) {
        const blob = await (await fetch(this.fileValue)).blob()
        data.files = [new File([blob], this.fileValue.split('/').pop() ?? 'file', { type: blob.type })]
      }
      await navigator.share(data)
    } catch {
      // Cancelled.
    }
  }
}
