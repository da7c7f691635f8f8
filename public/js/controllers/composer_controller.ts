import { Controller } from '@hotwired/stimulus'
import { renderStreamMessage } from '@hotwired/turbo'
import { uuid } from '../helpers/html.ts'
import { FileUploader, UploadFailed } from '../models/file_uploader.ts'
import { describeStatus, refusalFrom, showComposerFrame, type Refusal } from '../models/post_refusal.ts'
import { Outbox, type Unsent } from '../models/outbox.ts'
import { unfurl } from '../models/unfurler.ts'
import type MessagesController from './messages_controller.ts'

const TURBO_STREAM = 'text/vnd.turbo-stream.html'
// Pauses before a send without an answer is tried again: doubling from the first to the last.
const RETRY_FIRST_MS = 2_000
const RETRY_LAST_MS = 30_000

// The message composer: Enter sends (Shift+Enter is a new line, and with the formatting toolbar
// open Enter is a new line too), the message shows at once as pending and is replaced by the
// server's copy; files can be picked, pasted or dropped (several at once), are listed above the
// input until sent, and each goes out as its own message with its own pending copy and progress
// bar, one upload at a time in the order listed; text typed with them is a message of its own, as
// upstream's is. A pasted link is unfurled.
//
// Text messages go out through an outbox (models/outbox.ts, in localStorage): one at a time, in the
// order sent. Without a connection they wait, marked so, and go out when it is back (and after a
// reload); a refused one shows why with a Retry button. While the connection is gone a line above
// the composer says so, and the composer keeps taking messages.
export default class ComposerController extends Controller<HTMLFormElement> {
  static targets = ['clientid', 'connection', 'fields', 'fileList', 'text']
  static classes = ['toolbar']
  static outlets = ['messages']
  static values = { roomId: Number }

  declare readonly roomIdValue: number
  declare readonly clientidTarget: HTMLInputElement
  declare readonly connectionTarget: HTMLElement
  declare readonly hasConnectionTarget: boolean
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
  private unsent: Outbox | null = null
  private flushing = false
  private cableDown = false
  private retryTimer: ReturnType<typeof setTimeout> | undefined
  private retryDelay = RETRY_FIRST_MS

  connect(): void {
    this.textTarget.addEventListener('keydown', this.keydown, { capture: true })
    this.textTarget.addEventListener('lexxy:insert-link', this.linkInserted as EventListener)
    window.addEventListener('online', this.browserOnline)
    window.addEventListener('offline', this.showConnection)
    this.showConnection()
  }

  disconnect(): void {
    this.textTarget.removeEventListener('keydown', this.keydown, { capture: true })
    this.textTarget.removeEventListener('lexxy:insert-link', this.linkInserted as EventListener)
    window.removeEventListener('online', this.browserOnline)
    window.removeEventListener('offline', this.showConnection)
    clearTimeout(this.retryTimer)
  }

  // Stimulus may connect the messages outlet before this controller.
  private get outbox(): Outbox {
    this.unsent ??= new Outbox(this.roomIdValue)
    return this.unsent
  }

  // What an earlier visit left unsent comes back as pending copies and goes out again; what the
  // page already shows from the server was sent after all.
  async messagesOutletConnected(messages: MessagesController): Promise<void> {
    for (const unsent of this.outbox.all()) {
      const shown = document.getElementById(`message_${unsent.clientMessageId}`)
      if (shown && !shown.classList.contains('message--pending')) {
        this.outbox.remove(unsent.clientMessageId)
        continue
      }
      if (!shown) await messages.insertPendingMessage(unsent.clientMessageId, unsent.text)
      if (unsent.failure) this.showFailure(unsent.clientMessageId, unsent.failure)
    }
    void this.flush()
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

  // The cable is back (refresh-room:online) or has been gone for a while (refresh-room:offline).
  online(): void {
    this.cableDown = false
    this.showConnection()
    void this.flush()
  }

  offline(): void {
    this.cableDown = true
    this.showConnection()
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
    this.outbox.add({ clientMessageId, fields: body.toString(), text })
    this.reset()
    if (this.hasMessagesOutlet) await this.messagesOutlet.insertPendingMessage(clientMessageId, text)
    this.element.dispatchEvent(new CustomEvent('composer:sent', { bubbles: true }))
    await this.flush()
  }

  // Sends what the outbox holds, oldest first, one at a time. Without a connection the rest wait
  // (and are tried again after a growing pause, and whenever the connection comes back); a refusal
  // sets that one aside with its Retry button and the next goes on.
  private async flush(): Promise<void> {
    if (this.flushing) return
    this.flushing = true
    clearTimeout(this.retryTimer)
    try {
      for (let next = this.nextUnsent(); next; next = this.nextUnsent()) {
        if (!navigator.onLine || !(await this.post(next))) {
          for (const unsent of this.outbox.all()) if (!unsent.failure) this.messagesOutletIfAny()?.clientWaiting(unsent.clientMessageId)
          this.retryTimer = setTimeout(() => void this.flush(), this.retryDelay)
          this.retryDelay = Math.min(this.retryDelay * 2, RETRY_LAST_MS)
          return
        }
        this.retryDelay = RETRY_FIRST_MS
      }
    } finally {
      this.flushing = false
    }
  }

  private nextUnsent(): Unsent | undefined {
    return this.outbox.all().find((unsent) => !unsent.failure)
  }

  // One try: true once the server has answered (stored, or refused), false without an answer.
  private async post(unsent: Unsent): Promise<boolean> {
    let response: Response
    try {
      response = await fetch(this.element.action, { method: 'POST', body: new URLSearchParams(unsent.fields), headers: { accept: TURBO_STREAM }, credentials: 'same-origin' })
    } catch {
      return false
    }
    const contentType = response.headers.get('content-type') ?? ''
    const answer = await response.text().catch(() => null)
    if (answer === null) return false
    // The room's stream may have brought the server's copy already: it was stored after all.
    const shown = document.getElementById(`message_${unsent.clientMessageId}`)
    if (shown && !shown.classList.contains('message--pending')) {
      this.outbox.remove(unsent.clientMessageId)
      return true
    }
    if (!response.ok) {
      const refusal = refusalFrom(response.status, contentType, answer)
      this.outbox.update(unsent.clientMessageId, { failure: refusal.reason })
      this.refused(unsent.clientMessageId, refusal)
      return true
    }
    this.outbox.remove(unsent.clientMessageId)
    if (contentType.startsWith(TURBO_STREAM)) renderStreamMessage(answer)
    return true
  }

  // Whatever the answer, the person is told: the pending copy says why it was not sent, and a
  // room that is gone replaces the composer with the server's note ("This room was deleted.").
  private refused(clientMessageId: string, refusal: Refusal): void {
    this.showFailure(clientMessageId, refusal.reason)
    showComposerFrame(refusal.composerFrame)
  }

  // A refused text message offers Retry: the same post again (the server answers a repeat with the
  // message it stored, so a retry never posts twice).
  private showFailure(clientMessageId: string, reason: string): void {
    this.messagesOutletIfAny()?.failPendingMessage(clientMessageId, reason, () => {
      this.outbox.update(clientMessageId, { failure: undefined })
      void this.flush()
    })
  }

  private messagesOutletIfAny(): MessagesController | null {
    return this.hasMessagesOutlet ? this.messagesOutlet : null
  }

  private browserOnline = (): void => {
    this.showConnection()
    this.retryDelay = RETRY_FIRST_MS
    void this.flush()
  }

  // "Reconnecting…" above the composer while the browser is offline or the cable has been gone a while.
  private showConnection = (): void => {
    if (!this.hasConnectionTarget) return
    const down = !navigator.onLine || this.cableDown
    this.connectionTarget.hidden = !down
    this.element.classList.toggle('composer--offline', down)
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

  // A file that did not go out can be retried while the page is open (files are not kept across a
  // reload); the same client_message_id again, so one that did arrive is not stored twice.
  private async upload(messages: MessagesController, file: File, clientMessageId: string): Promise<void> {
    try {
      const uploader = new FileUploader(file, this.element.action, clientMessageId, (percent) => messages.updatePendingUpload(clientMessageId, percent))
      renderStreamMessage(await uploader.upload())
    } catch (error) {
      if (error instanceof UploadFailed) showComposerFrame(error.composerFrame)
      messages.failPendingMessage(clientMessageId, error instanceof UploadFailed ? error.reason : describeStatus(0), () => {
        this.uploads = this.uploads.then(() => this.upload(messages, file, clientMessageId))
      })
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
