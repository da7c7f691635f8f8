import { Controller } from '@hotwired/stimulus'

// The one <dialog class="lightbox"> in the layout: any link with data-lightbox opens its image
// full size, with download and share (the share button is a web-share controller, given the
// image's URL, so the file is fetched before the click that shares it).
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
    this.shareTarget.dataset.webShareTitleValue = filename
    this.shareTarget.dataset.webShareFilesValue = url
    this.dialogTarget.showModal()
  }

  close(): void {
    this.dialogTarget.close()
    this.imageTarget.removeAttribute('src')
  }

  private clicked = (event: MouseEvent): void => {
    const link = (event.target as Element).closest<HTMLAnchorElement>('a[data-lightbox]')
    if (!link || event.metaKey || event.ctrlKey) return
    event.preventDefault()
    this.open(link.href, link.dataset.lightboxFilename ?? '')
  }
}
