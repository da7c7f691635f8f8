import { Controller } from '@hotwired/stimulus'
import type { Subscription } from '@rails/actioncable'
import { subscribe } from '../lib/cable.ts'

// Hears when this person reads a room in another tab or device, and says so to the room list.
export default class ReadRoomsController extends Controller {
  private subscription: Subscription | null = null

  connect(): void {
    if (this.subscription) return
    const controller = this
    this.subscription = subscribe({ channel: 'ReadRoomsChannel' }, {
      received(data: { room_id: number }) {
        controller.dispatch('read', { detail: { roomId: data.room_id } })
      },
    })
  }

  // The sidebar frame is permanent: a navigation moves it, so only a real removal unsubscribes.
  disconnect(): void {
    setTimeout(() => {
      if (this.element.isConnected) return
      this.subscription?.unsubscribe()
      this.subscription = null
    }, 0)
  }
}
