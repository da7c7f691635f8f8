import { Controller } from '@hotwired/stimulus'
import { renderStreamMessage } from '@hotwired/turbo'
import { uuid } from '../helpers/html.ts'
import { FileUploader } from '../models/file_uploader.ts'
import { unfurl } from '../models/unfurler.ts'
import type MessagesController from './messages_controller.ts'

const TURBO_STREAM = 'text/vnd.turbo-stream.html'

// The message composer: Enter sends (Shift+Enter is a new line, and with the formatting toolbar
// open Enter is a new line too), the message shows at once as pending and is replaced by the
// server's copy; files can be picked, pasted or dropped; a pasted link is unfurled.
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
    if (this.files.length > 0) void this.submitFiles()
    void this.submitMessage()
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
    try {
      const response = await fetch(this.element.action, { method: 'POST', body, headers: { accept: TURBO_STREAM }, credentials: 'same-origin' })
      if (!response.ok) throw new Error(`HTTP ${response.status}`)
      if ((response.headers.get('content-type') ?? '').startsWith(TURBO_STREAM)) renderStreamMessage(await response.text())
    } catch {
      if (this.hasMessagesOutlet) this.messagesOutlet.failPendingMessage(clientMessageId)
    }
  }

  private async submitFiles(): Promise<void> {
    const files = this.files
    this.files = []
    this.fileListTarget.replaceChildren()
    for (const file of files) {
      const clientMessageId = uuid()
      if (this.hasMessagesOutlet) await this.messagesOutlet.insertPendingMessage(clientMessageId, file.name)
      const uploaded = await new FileUploader(file, this.element.action, clientMessageId).upload()
      if (!uploaded && this.hasMessagesOutlet) this.messagesOutlet.failPendingMessage(clientMessageId)
    }
  }

  private addFiles(files: File[]): void {
    for (const file of files) {
      this.files.push(file)
      const item = document.createElement('div')
      item.className = 'composer__file btn btn--faux txt-small'
      item.textContent = file.name
      const remove = document.createElement('button')
      remove.type = 'button'
      remove.className = 'btn btn--borderless composer__file-remove'
      remove.setAttribute('aria-label', `Remove ${file.name}`)
      remove.textContent = '×'
      remove.addEventListener('click', () => {
        this.files = this.files.filter((f) => f !== file)
        item.remove()
      })
      item.append(remove)
      this.fileListTarget.append(item)
    }
  }

  private reset(): void {
    this.textTarget.value = ''
    this.clientidTarget.value = ''
  }
}

function usingTouchDevice(): boolean {
  return 'ontouchstart' in window && navigator.maxTouchPoints > 0 && matchMedia('(pointer: coarse)').matches
}
