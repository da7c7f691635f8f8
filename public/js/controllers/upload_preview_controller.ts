import { Controller } from '@hotwired/stimulus'

// Shows the picked avatar or logo before it is saved. A picker with nothing saved yet has no
// <img> (an image without a source is invalid HTML): the preview image is made on the first pick.
export default class UploadPreviewController extends Controller {
  static targets = ['image', 'input']
  declare readonly imageTarget: HTMLImageElement
  declare readonly hasImageTarget: boolean
  declare readonly inputTarget: HTMLInputElement

  previewImage(): void {
    const file = this.inputTarget.files?.[0]
    if (!file) return
    const image = this.hasImageTarget ? this.imageTarget : this.makeImage()
    image.src = URL.createObjectURL(file)
    image.hidden = false
  }

  private makeImage(): HTMLImageElement {
    const image = document.createElement('img')
    image.alt = ''
    image.setAttribute('aria-hidden', 'true')
    image.width = image.height = 160
    image.dataset.uploadPreviewTarget = 'image'
    this.inputTarget.parentElement!.prepend(image)
    return image
  }
}
