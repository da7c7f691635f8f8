import { Controller } from '@hotwired/stimulus'

// navigator.share for a title, text and URL, or for a file (filesValue: the URL to fetch it
// from); hidden where the browser cannot share it.
//
// The browser allows share() only within a few seconds of the click that asked for it, and
// fetching a large file first would use that up. So the file is fetched ahead, when the pointer
// comes over the button, presses it or the button gets focus, and the click shares it at once.
// A click before the file is in marks the button busy; the next click shares.
export default class WebShareController extends Controller<HTMLElement> {
  static values = { title: String, text: String, url: String, files: String }
  declare readonly titleValue: string
  declare readonly textValue: string
  declare readonly urlValue: string
  declare readonly filesValue: string

  private file: File | null = null
  private fileUrl: string | null = null
  private fetching: Promise<void> | null = null

  connect(): void {
    this.element.hidden = !this.shareable
    for (const type of ['pointerenter', 'pointerdown', 'focus']) this.element.addEventListener(type, this.prepare)
  }

  disconnect(): void {
    for (const type of ['pointerenter', 'pointerdown', 'focus']) this.element.removeEventListener(type, this.prepare)
    this.file = this.fileUrl = null
  }

  // A reused button (given another file) must not share the one fetched before.
  filesValueChanged(): void {
    if (this.fileUrl !== this.filesValue) this.file = this.fileUrl = null
    if (this.element.isConnected) this.element.hidden = !this.shareable
  }

  share(): void {
    if (this.filesValue && !this.ready) {
      this.busy = true
      this.prepare()
      return
    }
    const data = this.shareData()
    if (typeof navigator.canShare === 'function' && !navigator.canShare(data)) return
    // Not awaited: awaiting first would give up the click's permission to share.
    navigator.share(data).catch((error: unknown) => {
      if ((error as Error).name !== 'AbortError') console.warn('Sharing failed:', error)
    })
  }

  private get shareable(): boolean {
    if (typeof navigator.share !== 'function') return false
    return !this.filesValue || typeof navigator.canShare === 'function'
  }

  private get ready(): boolean {
    return this.file !== null && this.fileUrl === this.filesValue
  }

  private shareData(): ShareData {
    const data: ShareData = {}
    if (this.titleValue) data.title = this.titleValue
    if (this.textValue) data.text = this.textValue
    if (this.urlValue) data.url = this.urlValue
    if (this.ready) data.files = [this.file!]
    return data
  }

  private prepare = (): void => {
    const url = this.filesValue
    if (!url || this.ready || this.fetching) return
    this.fetching = fetchFile(url)
      .then((file) => {
        if (this.filesValue !== url) return
        this.file = file
        this.fileUrl = url
      })
      .catch((error: unknown) => console.warn('Could not fetch the file to share:', error))
      .finally(() => {
        this.fetching = null
        this.busy = false
      })
  }

  private set busy(busy: boolean) {
    if (busy) this.element.setAttribute('aria-busy', 'true')
    else this.element.removeAttribute('aria-busy')
  }
}

async function fetchFile(url: string): Promise<File> {
  const response = await fetch(url, { credentials: 'same-origin' })
  if (!response.ok) throw new Error(`HTTP ${response.status}`)
  const blob = await response.blob()
  return new File([blob], filenameOf(url), { type: blob.type })
}

// Blob URLs end in the file's name (/rails/active_storage/blobs/redirect/:signed_id/:filename).
function filenameOf(url: string): string {
  const last = new URL(url, location.href).pathname.split('/').pop() ?? ''
  try {
    return decodeURIComponent(last) || 'file'
  } catch {
    return last || 'file'
  }
}
