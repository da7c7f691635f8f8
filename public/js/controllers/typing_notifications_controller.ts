import { Controller } from '@hotwired/stimulus'
import type { Subscription } from '@rails/actioncable'
import { Current } from '../lib/current.ts'
import { subscribe } from '../lib/cable.ts'
import { REFRESH_MS, TypingTracker } from '../models/typing_tracker.ts'

// Says "… is typing" just above the composer (a polite status, so screen readers hear it too), and tells the room while this person types (at most
// once a second, with a stop when they send or leave).
export default class TypingNotificationsController extends Controller<HTMLElement> {
  static targets = ['indicator', 'author']
  static classes = ['active']

  declare readonly indicatorTarget: HTMLElement
  declare readonly authorTarget: HTMLElement
  declare readonly activeClass: string

  private subscription: Subscription | null = null
  private tracker!: TypingTracker
  private lastStart = 0
  private typing = false

  connect(): void {
    const controller = this
    this.tracker = new TypingTracker((names) => this.show(names))
    this.subscription = subscribe({ channel: 'TypingNotificationsChannel', room_id: Current.roomId }, {
      received(data: { action: string; user: { id: number; name: string } }) {
        if (data.user.id === Current.userId) return
        if (data.action === 'start') controller.tracker.start(data.user.id, data.user.name)
        else controller.tracker.stop(data.user.id)
      },
    })
    this.element.addEventListener('lexxy:change', this.changed)
    this.element.addEventListener('composer:sent', this.sent)
  }

  disconnect(): void {
    this.stop()
    this.element.removeEventListener('lexxy:change', this.changed)
    this.element.removeEventListener('composer:sent', this.sent)
    this.subscription?.unsubscribe()
    this.subscription = null
  }

  stop(): void {
    if (!this.typing) return
    this.typing = false
    this.lastStart = 0
    this.subscription?.perform('stop')
  }

  private sent = (): void => this.stop()

  private changed = (event: Event): void => {
    const editor = (event.target as Element).closest('lexxy-editor') as LexxyEditorElement | null
    if (!editor || editor.toString().trim() === '') return this.stop()
    if (Date.now() - this.lastStart < REFRESH_MS) return
    this.lastStart = Date.now()
    this.typing = true
    this.subscription?.perform('start')
  }

  private show(names: string[]): void {
    this.indicatorTarget.classList.toggle(this.activeClass, names.length > 0)
    this.authorTarget.textContent = names.length === 0 ? '' : `${sentence(names)} ${names.length === 1 ? 'is' : 'are'} typing…`
  }
}

// "Jason", "Jason and Kevin", "Jason, JZ and Kevin".
function sentence(names: string[]): string {
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`
}
