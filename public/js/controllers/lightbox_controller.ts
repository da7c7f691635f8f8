import { Controller } from '@hotwired/stimulus'

// The one <dialog class="lightbox"> in the layout: any link with data-lightbox opens its image
// full size, with download and share (the share button is a web-share controller, given the
// image's URL, so the file is fetched before the click that shares it). The page carries no
// <img> without a source and no download link without an address: the image is made when the
// dialog opens and removed when it closes, and the link gets its href and download then.
export default class LightboxController extends Controller<HTMLElement> {
  static targets = ['dialog', 'download', 'share']
  declare readonly dialogTarget: HTMLDialogElement
  declare readonly hasDialogTarget: boolean
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
    this.dialogTarget.querySelector('.lightbox__image')?.remove()
    const image = document.createElement('img')
    image.className = 'lightbox__image'
    image.src = url
    image.alt = filename
    this.dialogTarget.prepend(image)
    this.downloadTarget.href = url
    this.downloadTarget.download = filename
    this.shareTarget.dataset.webShareTitleValue = filename
    this.shareTarget.dataset.webShareFilesValue = url
    this.dialogTarget.showModal()
  }

  close(): void {
    this.dialogTarget.close()
    this.dialogTarget.querySelector('.lightbox__image')?.remove()
  }

  private clicked = (event: MouseEvent): void => {
    const link = (event.target as Element).closest<HTMLAnchorElement>('a[data-lightbox]')
    if (!link || event.metaKey || event.ctrlKey) return
    event.preventDefault()
    this.open(link.href, link.dataset.lightboxFilename ?? '')
  }
}
