import { Controller } from '@hotwired/stimulus'
import { renderStreamMessage } from '@hotwired/turbo'
import type { Subscription } from '@rails/actioncable'
import { subscribe } from '../lib/cable.ts'

const HIDDEN_REFRESH_MS = 60_000
const OFFLINE_AFTER_MS = 5_000

// Catches the room up after the socket (re)connects or the tab comes back after a minute away:
// asks /rooms/:id/refresh for everything newer than the newest update seen, and tells the rest
// of the page when it is online, offline (after 5 s without a connection) and visible again.
export default class RefreshRoomController extends Controller<HTMLElement> {
  static targets = ['message']
  static values = { loadedAt: Number, url: String }

  declare loadedAtValue: number
  declare readonly urlValue: string

  private subscription: Subscription | null = null
  private hiddenAt: number | null = null
  private offlineTimer: ReturnType<typeof setTimeout> | undefined
  private connectedOnce = false

  connect(): void {
    const controller = this
    this.subscription = subscribe({ channel: 'HeartbeatChannel' }, {
      connected() {
        controller.connected()
      },
      disconnected() {
        controller.disconnected()
      },
    })
  }

  disconnect(): void {
    this.subscription?.unsubscribe()
    this.subscription = null
    clearTimeout(this.offlineTimer)
  }

  messageTargetConnected(message: HTMLElement): void {
    const updatedAt = Number(message.dataset.messageUpdatedAt)
    if (updatedAt > this.loadedAtValue) this.loadedAtValue = updatedAt
  }

  visibilityChanged(): void {
    if (document.visibilityState === 'hidden') {
      this.hiddenAt = Date.now()
      return
    }
    if (this.hiddenAt !== null && Date.now() - this.hiddenAt > HIDDEN_REFRESH_MS) {
      void this.refresh('visible')
      this.dispatch('visible', { prefix: 'refresh-room', target: window })
    }
    this.hiddenAt = null
  }

  online(): void {
    void this.refresh('online')
  }

  private connected(): void {
    clearTimeout(this.offlineTimer)
    this.dispatch('online', { target: window })
    void this.refresh(this.connectedOnce ? 'reconnection' : 'connection')
    this.connectedOnce = true
  }

  private disconnected(): void {
    clearTimeout(this.offlineTimer)
    this.offlineTimer = setTimeout(() => this.dispatch('offline', { target: window }), OFFLINE_AFTER_MS)
  }

  private async refresh(reason: string): Promise<void> {
    const since = this.loadedAtValue
    const response = await fetch(`${this.urlValue}?since=${since}&reason=${reason}`, { headers: { accept: 'text/vnd.turbo-stream.html' }, credentials: 'same-origin' }).catch(() => null)
    if (!response || !response.ok) return
    const body = await response.text()
    if (body.trim() !== '') renderStreamMessage(body)
  }
}
