import { Controller } from '@hotwired/stimulus'
import { reloadFrame } from '../lib/frame_reload.ts'

interface FrameElement extends HTMLElement {
  src: string | null
  reload(): void
}

// Small actions on a <turbo-frame>: load it from a URL, reload it, and let it be replaced on
// the next visit (a permanent frame that a form inside is about to change).
export default class TurboFrameController extends Controller<FrameElement> {
  load(event: Event & { params?: { url?: string } }): void {
    const url = event.params?.url ?? this.element.dataset.turboFrameUrlParam
    if (url && this.element.getAttribute('src') !== url) this.element.src = url
  }

  reload(): void {
    if (this.element.getAttribute('src')) reloadFrame(this.element)
  }

  unpermanize(): void {
    this.element.removeAttribute('data-turbo-permanent')
  }
}
