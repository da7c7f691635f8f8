import { Controller } from '@hotwired/stimulus'

// The one <dialog class="lightbox"> in the layout: any link with data-lightbox opens its image
// full size, with download and share.
export default class LightboxController extends Controller<HTMLElement> {
  static targets = ['dialog', 'image', 'download', 'share']
  declare readonly dialogTarget: HTMLDialogElement
  declare readonly hasDialogTarget: boolean
  declare readonly imageTarget: HTMLImageElement
  declare readonly downloadTarget: HTMLAnchorElement
  declare readonly shareTarget: HTMLButtonElement

  connect(): void {
    this.element.addEventListener('click', this.clicked)
  }

  disconnect(): void {
    this.element.removeEventListener('click', this.clicked)
  }

  open(url: string, filename = ''): void {
    if (!this.hasDialogTarget) return
    this.imageTarget.src = url
    this.imageTarget.alt = filename
    this.downloadTarget.href = url
    this.downloadTarget.download = filename
    this.shareTarget.hidden = typeof navigator.canShare !== 'function'
    this.shareTarget.dataset.url = url
    this.dialogTarget.showModal()
  }

  close(): void {
    this.dialogTarget.close()
    this.imageTarget.removeAttribute('src')
  }

  async share(): Promise<void> {
    const url = this.shareTarget.dataset.url
    if (!url) return
    try {
      const blob = await (await fetch(url)).blob()
      const file = new File([blob], this.imageTarget.alt || 'image', { type: blob.type })
      await navigator.share(navigator.canShare({ files: [file] }) ? { files: [file] } : { url })
    } catch {
      // Sharing was cancelled or is unsupported.
    }
  }

  private clicked = (event: MouseEvent): void => {
    const link = (event.target as Element).closest<HTMLAnchorElement>('a[data-lightbox]')
    if (!link || event.metaKey || event.ctrlKey) return
    event.preventDefault()
    this.open(link.href, link.dataset.lightboxFilename ?? '')
  }
}
