import { Controller } from '@hotwired/stimulus'
import { renderStreamMessage } from '@hotwired/turbo'
import { uuid } from '../helpers/html.ts'
import { FileUploader, UploadFailed } from '../models/file_uploader.ts'
import { describeStatus, refusalFrom, showComposerFrame, type Refusal } from '../models/post_refusal.ts'
import { unfurl } from '../models/unfurler.ts'
import type MessagesController from './messages_controller.ts'

const TURBO_STREAM = 'text/vnd.turbo-stream.html'

// The message composer: Enter sends (Shift+Enter is a new line, and with the formatting toolbar
// open Enter is a new line too), the message shows at once as pending and is replaced by the
// server's copy; files can be picked, pasted or dropped (several at once), are listed above the
// input until sent, and each goes out as its own message with its own pending copy and progress
// bar, one upload at a time in the order listed; text typed with them is a message of its own, as
// upstream's is. A pasted link is unfurled.
export default class ComposerController extends Controller<HTMLFormElement> {
  static targets = ['clientid', 'fields', 'fileList', 'text']
  static classes = ['toolbar']
  static outlets = ['messages']
  static values = { roomId: Number }

  declare readonly clientidTarget: HTMLInputElement
  declare readonly fieldsTarget: HTMLFieldSetElement
  declare readonly fileListTarget: HTMLElement
  declare readonly textTarget: LexxyEditorElement
  declare readonly toolbarClass: string
  declare readonly messagesOutlet: MessagesController
  declare readonly hasMessagesOutlet: boolean

  private files: File[] = []
  private readonly fileItems = new Map<File, { item: HTMLElement; previewUrl: string | null }>()
  // Uploads go out one at a time, in the order they were sent, across sends.
  private uploads: Promise<void> = Promise.resolve()

  connect(): void {
    this.textTarget.addEventListener('keydown', this.keydown, { capture: true })
    this.textTarget.addEventListener('lexxy:insert-link', this.linkInserted as EventListener)
  }

  disconnect(): void {
    this.textTarget.removeEventListener('keydown', this.keydown, { capture: true })
    this.textTarget.removeEventListener('lexxy:insert-link', this.linkInserted as EventListener)
  }

  submit(event?: Event): void {
    event?.preventDefault()
    if (this.fieldsTarget.disabled) return
    void this.submitMessage()
    if (this.files.length > 0) this.submitFiles()
  }

  toggleToolbar(): void {
    this.element.classList.toggle(this.toolbarClass)
    this.textTarget.focus()
  }

  filePicked(event: Event): void {
    const input = event.target as HTMLInputElement
    this.addFiles([...(input.files ?? [])])
    input.value = ''
  }

  pasteFiles(event: ClipboardEvent): void {
    const files = [...(event.clipboardData?.files ?? [])]
    if (files.length === 0) return
    event.preventDefault()
    this.addFiles(files)
  }

  dropFiles(event: CustomEvent<{ files: File[] }>): void {
    this.addFiles(event.detail.files)
  }

  // Files dropped or pasted into the editor come to the file list, never into the text.
  preventAttachment(event: Event): void {
    event.preventDefault()
  }

  submitEnd(event: CustomEvent<{ success: boolean }>): void {
    if (!event.detail.success) this.messagesOutlet.failPendingMessage(this.clientidTarget.value)
  }

  online(): void {
    this.fieldsTarget.disabled = false
  }

  offline(): void {
    this.fieldsTarget.disabled = true
  }

  // Private

  private keydown = (event: KeyboardEvent): void => {
    if (event.key !== 'Enter' || event.isComposing) return
    if (document.querySelector('.lexxy-prompt-menu--visible')) return
    const metaEnter = event.metaKey || event.ctrlKey
    const toolbarOpen = this.element.classList.contains(this.toolbarClass)
    if (metaEnter || (!event.shiftKey && !toolbarOpen && !usingTouchDevice())) {
      event.preventDefault()
      event.stopImmediatePropagation()
      this.submit()
    }
  }

  private linkInserted = (event: CustomEvent<{ url: string; insertBelowLink: (html: string) => void }>): void => {
    void unfurl(event.detail.url).then((html) => {
      if (html) event.detail.insertBelowLink(html)
    })
  }

  private async submitMessage(): Promise<void> {
    const text = this.textTarget.toString().trim()
    if (text === '') return
    const clientMessageId = uuid()
    this.clientidTarget.value = clientMessageId
    const body = new URLSearchParams()
    for (const [name, value] of new FormData(this.element)) if (typeof value === 'string') body.append(name, value)
    body.set('message[body]', this.textTarget.value)
    body.set('message[client_message_id]', clientMessageId)
    this.reset()
    if (this.hasMessagesOutlet) await this.messagesOutlet.insertPendingMessage(clientMessageId, text)
    this.element.dispatchEvent(new CustomEvent('composer:sent', { bubbles: true }))
    let response: Response
    try {
      response = await fetch(this.element.action, { method: 'POST', body, headers: { accept: TURBO_STREAM }, credentials: 'same-origin' })
    } catch {
      return this.refused(clientMessageId, refusalFrom(0, '', ''))
    }
    const contentType = response.headers.get('content-type') ?? ''
    const answer = await response.text().catch(() => '')
    if (!response.ok) return this.refused(clientMessageId, refusalFrom(response.status, contentType, answer))
    if (contentType.startsWith(TURBO_STREAM)) renderStreamMessage(answer)
  }

  // Whatever the answer, the person is told: the pending copy says why it was not sent, and a
  // room that is gone replaces the composer with the server's note ("This room was deleted.").
  private refused(clientMessageId: string, refusal: Refusal): void {
    if (this.hasMessagesOutlet) this.messagesOutlet.failPendingMessage(clientMessageId, refusal.reason)
    showComposerFrame(refusal.composerFrame)
  }

  private submitFiles(): void {
    const sending = this.files.map((file) => ({ file, clientMessageId: uuid() }))
    for (const file of [...this.files]) this.removeFile(file)
    if (!this.hasMessagesOutlet) return
    const messages = this.messagesOutlet
    const shown = sending.map(({ file, clientMessageId }) => messages.insertPendingUpload(clientMessageId, file.name))
    this.uploads = this.uploads.then(async () => {
      await Promise.all(shown)
      for (const { file, clientMessageId } of sending) await this.upload(messages, file, clientMessageId)
    })
  }

  private async upload(messages: MessagesController, file: File, clientMessageId: string): Promise<void> {
    try {
      const uploader = new FileUploader(file, this.element.action, clientMessageId, (percent) => messages.updatePendingUpload(clientMessageId, percent))
      renderStreamMessage(await uploader.upload())
    } catch (error) {
      if (error instanceof UploadFailed) showComposerFrame(error.composerFrame)
      messages.failPendingMessage(clientMessageId, error instanceof UploadFailed ? error.reason : describeStatus(0))
    }
  }

  // The list above the input, sorted by name as upstream's is: a thumbnail for an image, an icon
  // for anything else, and the name; clicking a file takes it off the list.
  private addFiles(files: File[]): void {
    for (const file of files) {
      if (this.fileItems.has(file)) continue
      const previewUrl = file.type.startsWith('image/') ? URL.createObjectURL(file) : null
      this.files.push(file)
      this.fileItems.set(file, { item: fileItem(file, previewUrl, () => this.removeFile(file)), previewUrl })
    }
    this.files.sort((a, b) => a.name.localeCompare(b.name))
    this.fileListTarget.replaceChildren(...this.files.map((file) => this.fileItems.get(file)!.item))
  }

  private removeFile(file: File): void {
    const entry = this.fileItems.get(file)
    this.files = this.files.filter((f) => f !== file)
    this.fileItems.delete(file)
    if (!entry) return
    entry.item.remove()
    if (entry.previewUrl) URL.revokeObjectURL(entry.previewUrl)
  }

  private reset(): void {
    this.textTarget.value = ''
    this.clientidTarget.value = ''
  }
}

function fileItem(file: File, previewUrl: string | null, remove: () => void): HTMLElement {
  const item = document.createElement('button')
  item.type = 'button'
  item.className = 'btn btn--plain composer__file'
  item.title = `Remove ${file.name}`
  item.setAttribute('aria-label', `Remove ${file.name}`)
  let thumbnail: HTMLElement
  if (previewUrl) {
    const image = document.createElement('img')
    image.src = previewUrl
    image.alt = ''
    thumbnail = image
  } else {
    thumbnail = document.createElement('span')
    const icon = document.createElement('span')
    icon.className = 'icon icon--file'
    icon.setAttribute('aria-hidden', 'true')
    thumbnail.append(icon)
  }
  thumbnail.classList.add('composer__file-thumbnail')
  const dot = file.name.lastIndexOf('.')
  const caption = document.createElement('span')
  caption.className = 'composer__file-caption txt-small'
  const stem = document.createElement('span')
  stem.className = 'composer__file-stem'
  stem.textContent = dot > 0 ? file.name.slice(0, dot) : file.name
  caption.append(stem)
  if (dot > 0) caption.append(file.name.slice(dot))
  const cross = document.createElement('span')
  cross.className = 'composer__file-remove'
  cross.setAttribute('aria-hidden', 'true')
  cross.textContent = '×'
  item.append(thumbnail, caption, cross)
  item.addEventListener('click', remove)
  return item
}

function usingTouchDevice(): boolean {
  return 'ontouchstart' in window && navigator.maxTouchPoints > 0 && matchMedia('(pointer: coarse)').matches
}
