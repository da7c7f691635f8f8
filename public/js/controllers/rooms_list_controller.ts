import { Controller } from '@hotwired/stimulus'
import type { Subscription } from '@rails/actioncable'
import { Current } from '../lib/current.ts'
import { subscribe } from '../lib/cable.ts'
import { reloadFrame } from '../lib/frame_reload.ts'

interface FrameElement extends HTMLElement {
  reload(): void
  loaded: Promise<void>
}

// The sidebar's room list: marks rooms unread as messages arrive elsewhere and read when this
// person looks at them, and reloads itself after the unread channel reconnects (once per real
// reconnect, only for the newest subscription, and never before its first load has finished).
export default class RoomsListController extends Controller<FrameElement> {
  static targets = ['room']
  static classes = ['unread']

  declare readonly roomTargets: HTMLElement[]
  declare readonly unreadClass: string

  private subscription: Subscription | null = null
  private disconnected = true
  private everConnected = false
  private firstLoadDone = false
  private reloadWhenLoaded = false

  connect(): void {
    this.subscription?.unsubscribe()
    const controller = this
    const subscription: Subscription = subscribe({ channel: 'UnreadRoomsChannel' }, {
      connected() {
        if (subscription === controller.subscription) controller.channelConnected()
      },
      disconnected() {
        if (subscription === controller.subscription) controller.disconnected = true
      },
      received(data: { roomId: number }) {
        if (subscription === controller.subscription) controller.unread(data.roomId)
      },
    })
    this.subscription = subscription
    document.addEventListener('turbo:load', this.markCurrent)
  }

  disconnect(): void {
    document.removeEventListener('turbo:load', this.markCurrent)
    this.subscription?.unsubscribe()
    this.subscription = null
    this.disconnected = true
  }

  loaded(): void {
    this.firstLoadDone = true
    if (this.reloadWhenLoaded) {
      this.reloadWhenLoaded = false
      reloadFrame(this.element)
      return
    }
    if (Current.roomId !== null) this.markRead(Current.roomId)
    this.markCurrent()
  }

  // The sidebar survives navigation (it is permanent), so the current room is marked again on
  // every page load.
  markCurrent = (): void => {
    for (const room of this.roomTargets) {
      if (Number(room.dataset.roomId) === Current.roomId) room.setAttribute('aria-current', 'page')
      else room.removeAttribute('aria-current')
    }
  }

  read(event: CustomEvent<{ roomId: number }>): void {
    this.markRead(event.detail.roomId)
  }

  private channelConnected(): void {
    if (!this.disconnected) return
    this.disconnected = false
    const reconnect = this.everConnected
    this.everConnected = true
    if (!reconnect) return
    if (this.firstLoadDone) reloadFrame(this.element)
    else this.reloadWhenLoaded = true
  }

  private markRead(roomId: number): void {
    const room = this.find(roomId)
    if (!room) return
    room.classList.remove(this.unreadClass)
    this.dispatch('read', { target: window, detail: { targetId: room.id } })
  }

  private unread(roomId: number): void {
    const room = this.find(roomId)
    if (!room) return
    if (Current.roomId !== roomId || document.visibilityState === 'hidden') room.classList.add(this.unreadClass)
    this.dispatch('unread', { target: window, detail: { targetId: room.id } })
  }

  private find(roomId: number): HTMLElement | undefined {
    return this.roomTargets.find((room) => Number(room.dataset.roomId) === Number(roomId))
  }
}
