import { SOUND_NAMES } from './sound_synth.ts'

// The optimistic copy of a message being sent: built from the <script type="text/template">
// the room page carries (with the sender's avatar and name), filled in with text only, and
// later replaced by the server's copy, which has the same id (message_<client_message_id>).
export class ClientMessage {
  constructor(private readonly template: HTMLElement) {}

  render(clientMessageId: string, text: string): HTMLElement {
    const now = new Date()
    const html = this.template.innerHTML
      .replaceAll('$clientMessageId$', clientMessageId)
      .replaceAll('$messageTimestamp$', String(now.getTime()))
      .replaceAll('$messageDatetime$', now.toISOString())
      .replaceAll('$messageClasses$', 'message--pending')
      .replace('$body$', '<div class="message__presentation-pending" dir="auto"></div>')
    const template = document.createElement('template')
    template.innerHTML = html.trim()
    const message = template.content.firstElementChild as HTMLElement
    const body = message.querySelector('.message__presentation-pending')!
    body.textContent = pendingText(text)
    return message
  }

  failed(clientMessageId: string): void {
    const message = document.getElementById(`message_${clientMessageId}`)
    message?.classList.add('message--failed')
    message?.setAttribute('title', 'This message could not be sent')
  }
}

function pendingText(text: string): string {
  const sound = /^\/play (\S+)$/.exec(text.trim())?.[1]
  return sound && SOUND_NAMES.includes(sound) ? `Playing ${sound}…` : text
}
