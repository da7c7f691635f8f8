import { Controller } from '@hotwired/stimulus'

// Shows the picked avatar or logo before it is saved.
export default class UploadPreviewController extends Controller {
  static targets = ['image', 'input']
  declare readonly imageTarget: HTMLImageElement
  declare readonly inputTarget: HTMLInputElement

  previewImage(): void {
    const file = this.inputTarget.files?.[0]
    if (!file) return
    this.imageTarget.src = URL.createObjectURL(file)
    this.imageTarget.hidden = false
  }
}
