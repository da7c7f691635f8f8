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
// person looks at them, and reloads itself whenever the unread channel (re)connects: once per
// real connection (not again on a duplicate connect callback), only for the newest subscription,
// and never before the frame's first load has finished (it waits for it instead).
export default class RoomsListController extends Controller<FrameElement> {
  static targets = ['room']
  static classes = ['unread']

  declare readonly roomTargets: HTMLElement[]
  declare readonly unreadClass: string

  private subscription: Subscription | null = null
  private disconnected = true
  private firstLoadDone = false
  private reloadWhenLoaded = false

  connect(): void {
    document.addEventListener('turbo:load', this.markCurrent)
    document.addEventListener('turbo:submit-end', this.markedUnread)
    if (!this.element.getAttribute('src')) this.firstLoadDone = true
    // A permanent frame is moved, not rebuilt, on navigation: keep listening through the move.
    if (this.subscription) return
    const controller = this
    const subscription: Subscription = subscribe({ channel: 'UnreadRoomsChannel' }, {
      connected() {
        if (subscription === controller.subscription) controller.channelConnected()
      },
      disconnected() {
        if (subscription === controller.subscription) controller.disconnected = true
      },
      received(data: { roomId: number; at?: number }) {
        if (subscription === controller.subscription) controller.unread(data.roomId, data.at)
      },
    })
    this.subscription = subscription
  }

  disconnect(): void {
    document.removeEventListener('turbo:load', this.markCurrent)
    document.removeEventListener('turbo:submit-end', this.markedUnread)
    setTimeout(() => {
      if (this.element.isConnected) return
      this.subscription?.unsubscribe()
      this.subscription = null
      this.disconnected = true
    }, 0)
  }

  loaded(event?: Event): void {
    // A frame inside (the Ping picker) announces its own loads through this one.
    if (event && event.target !== this.element) return
    this.firstLoadDone = true
    if (this.reloadWhenLoaded) {
      this.reloadWhenLoaded = false
      // Not from inside turbo:frame-load: Turbo is still finishing that load, and would take
      // the reload for it (it ends the reload's bookkeeping as the first load ends).
      setTimeout(() => reloadFrame(this.element), 0)
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

  // "Mark as unread" in a message's menu: the unread notice reaches every tab of this person, but
  // this one shows the room and would not mark it, so the answer to the form marks it here.
  markedUnread = (event: Event): void => {
    const { formSubmission, success } = (event as CustomEvent<{ formSubmission: { formElement: HTMLFormElement }; success: boolean }>).detail
    const form = formSubmission.formElement
    if (!success || !form.classList.contains('message__unread-form')) return
    const room = this.find(Number(form.dataset.roomId))
    if (!room) return
    room.classList.add(this.unreadClass)
    // No target: the badge counts again, and no Ping moves, since no message arrived.
    this.dispatch('unread', { target: window, detail: { targetId: '' } })
  }

  read(event: CustomEvent<{ roomId: number }>): void {
    this.markRead(event.detail.roomId)
  }

  private channelConnected(): void {
    if (!this.disconnected) return
    this.disconnected = false
    // Anything marked unread before the channel was listening is only in a fresh copy.
    if (!this.element.getAttribute('src')) return
    if (this.firstLoadDone) reloadFrame(this.element)
    else this.reloadWhenLoaded = true
  }

  private markRead(roomId: number): void {
    const room = this.find(roomId)
    if (!room) return
    room.classList.remove(this.unreadClass)
    this.dispatch('read', { target: window, detail: { targetId: room.id } })
  }

  private unread(roomId: number, at?: number): void {
    const room = this.find(roomId)
    if (!room) return
    if (Current.roomId !== roomId || document.visibilityState === 'hidden') room.classList.add(this.unreadClass)
    this.dispatch('unread', { target: window, detail: { targetId: room.id, at } })
  }

  private find(roomId: number): HTMLElement | undefined {
    return this.roomTargets.find((room) => Number(room.dataset.roomId) === Number(roomId))
  }
}
