import { Controller } from '@hotwired/stimulus'
import type { Subscription } from '@rails/actioncable'
import { Current } from '../lib/current.ts'
import { subscribe } from '../lib/cable.ts'

const REFRESH_INTERVAL_MS = 50_000
const VISIBILITY_DEBOUNCE_MS = 5_000

// Tells the room this person is here: present on connect and when the tab becomes visible,
// absent a few seconds after it is hidden, and a refresh every 50 s while it stays open.
export default class PresenceController extends Controller {
  private subscription: Subscription | null = null
  private refreshTimer: ReturnType<typeof setInterval> | undefined
  private visibilityTimer: ReturnType<typeof setTimeout> | undefined

  connect(): void {
    const controller = this
    this.subscription = subscribe({ channel: 'PresenceChannel', room_id: Current.roomId }, {
      connected() {
        controller.dispatch('present', { target: window, detail: { roomId: Current.roomId } })
      },
    })
    this.refreshTimer = setInterval(() => this.subscription?.perform('refresh'), REFRESH_INTERVAL_MS)
  }

  disconnect(): void {
    clearInterval(this.refreshTimer)
    clearTimeout(this.visibilityTimer)
    this.subscription?.unsubscribe()
    this.subscription = null
  }

  visibilityChanged(): void {
    clearTimeout(this.visibilityTimer)
    const visible = document.visibilityState === 'visible'
    if (visible) {
      this.subscription?.perform('present')
      this.dispatch('present', { target: window, detail: { roomId: Current.roomId } })
    } else {
      this.visibilityTimer = setTimeout(() => this.subscription?.perform('absent'), VISIBILITY_DEBOUNCE_MS)
    }
  }
}
