import { renderStreamMessage } from '@hotwired/turbo'
import type { Subscription } from '@rails/actioncable'
import { subscribe } from './cable.ts'

// <turbo-cable-stream-source channel signed-stream-name>: subscribes while in the page and
// renders every Turbo Stream it receives. It marks itself [connected] while the socket is up.
export class CableStreamSourceElement extends HTMLElement {
  private subscription: Subscription | null = null

  connectedCallback(): void {
    const element = this
    this.subscription = subscribe(
      { channel: this.getAttribute('channel'), signed_stream_name: this.getAttribute('signed-stream-name') },
      {
        received(data: unknown) {
          if (typeof data === 'string') renderStreamMessage(data)
        },
        connected() {
          element.setAttribute('connected', '')
        },
        disconnected() {
          element.removeAttribute('connected')
        },
      },
    )
  }

  disconnectedCallback(): void {
    this.subscription?.unsubscribe()
    this.subscription = null
    this.removeAttribute('connected')
  }
}
