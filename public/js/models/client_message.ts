import { SOUND_NAMES } from './sound_synth.ts'

const BODY_SLOT = '<div data-pending-body></div>'

// The optimistic copy of a message being sent: built from the <script type="text/template">
// the room page carries (with the sender's avatar and name), filled in with text or, for a file,
// its name and upload progress, and later replaced by the server's copy, which has the same id
// (message_<client_message_id>). Whatever the sender typed is set as text, never as markup.
export class ClientMessage {
  constructor(private readonly template: HTMLElement) {}

  render(clientMessageId: string, text: string): HTMLElement {
    const body = document.createElement('div')
    body.className = 'message__presentation-pending'
    body.dir = 'auto'
    body.textContent = pendingText(text)
    return this.fromTemplate(clientMessageId, body)
  }

  // A file on its way: an icon, the file's name and a progress bar at 0% until progress() moves it.
  renderUpload(clientMessageId: string, filename: string): HTMLElement {
    const body = document.createElement('div')
    body.className = 'message__pending-upload'
    body.setAttribute('role', 'progressbar')
    body.setAttribute('aria-label', `Uploading ${filename}`)
    body.setAttribute('aria-valuemin', '0')
    body.setAttribute('aria-valuemax', '100')
    const icon = document.createElement('span')
    icon.className = 'icon icon--file'
    icon.setAttribute('aria-hidden', 'true')
    const name = document.createElement('span')
    name.className = 'message__pending-upload-name'
    name.textContent = filename
    const percent = document.createElement('span')
    percent.className = 'message__pending-upload-percent'
    body.append(icon, name, percent)
    setProgress(body, 0)
    return this.fromTemplate(clientMessageId, body)
  }

  progress(clientMessageId: string, percent: number): void {
    const body = document.getElementById(`message_${clientMessageId}`)?.querySelector<HTMLElement>('.message__pending-upload')
    if (body) setProgress(body, percent)
  }

  // Not sent, and why; with `retry`, a Retry button that sends it again.
  failed(clientMessageId: string, reason?: string | null, retry?: () => void): void {
    const message = this.pending(clientMessageId)
    if (!message) return
    const note = reason ? `Not sent: ${reason}` : 'Not sent'
    this.sending(clientMessageId)
    message.classList.add('message--failed')
    message.setAttribute('title', note)
    message.querySelector('.message__body-content')?.setAttribute('data-failure', note)
    if (!retry) return
    const button = document.createElement('button')
    button.type = 'button'
    button.className = 'btn txt-small message__retry'
    button.textContent = 'Retry'
    button.setAttribute('aria-label', `Retry sending: ${message.querySelector('.message__presentation-pending')?.textContent?.slice(0, 60) ?? 'this message'}`)
    button.addEventListener('click', () => {
      this.sending(clientMessageId)
      retry()
    }, { once: true })
    message.querySelector('.message__body-content')?.append(button)
    // The note and the button make the message taller: keep them in view.
    requestAnimationFrame(() => button.scrollIntoView({ block: 'nearest' }))
  }

  // Kept to go out when the connection is back.
  waiting(clientMessageId: string): void {
    const message = this.pending(clientMessageId)
    if (!message || message.classList.contains('message--failed')) return
    message.classList.add('message--waiting')
    message.querySelector('.message__body-content')?.setAttribute('data-waiting', 'Waiting for the connection…')
  }

  // Going out (again): neither failed nor waiting.
  sending(clientMessageId: string): void {
    const message = this.pending(clientMessageId)
    if (!message) return
    message.classList.remove('message--failed', 'message--waiting')
    message.removeAttribute('title')
    message.querySelector('.message__body-content')?.removeAttribute('data-failure')
    message.querySelector('.message__body-content')?.removeAttribute('data-waiting')
    message.querySelector('.message__retry')?.remove()
  }

  private pending(clientMessageId: string): HTMLElement | null {
    const message = document.getElementById(`message_${clientMessageId}`)
    return message?.classList.contains('message--pending') ? message : null
  }

  private fromTemplate(clientMessageId: string, body: HTMLElement): HTMLElement {
    const now = new Date()
    const html = this.template.innerHTML
      .replaceAll('$clientMessageId$', clientMessageId)
      .replaceAll('$messageTimestamp$', String(now.getTime()))
      .replaceAll('$messageDatetime$', now.toISOString())
      .replaceAll('$messageClasses$', 'message--pending')
      .replace('$body$', BODY_SLOT)
    const template = document.createElement('template')
    template.innerHTML = html.trim()
    const message = template.content.firstElementChild as HTMLElement
    message.querySelector('[data-pending-body]')!.replaceWith(body)
    return message
  }
}

function setProgress(body: HTMLElement, percent: number): void {
  body.style.setProperty('--upload-progress', `${percent}%`)
  body.setAttribute('aria-valuenow', String(percent))
  body.setAttribute('aria-valuetext', `${percent}% uploaded`)
  body.querySelector('.message__pending-upload-percent')!.textContent = `${percent}%`
}

function pendingText(text: string): string {
  const sound = /^\/play (\S+)$/.exec(text.trim())?.[1]
  return sound && SOUND_NAMES.includes(sound) ? `Playing ${sound}…` : text
}
