import { connectableFor } from '../../models/membership/connectable.ts'
import type { Outcome } from '../command-queue.ts'
import { readRoomsStream } from './read-rooms.ts'
import { RoomChannel } from './room.ts'

type Verb = 'present' | 'disconnected' | 'refresh'

// Presence is written to the membership (through the writer, like every write); nothing is
// ever broadcast on the presence stream itself. Becoming present also reads the room, which
// the user's other tabs and devices hear about on their ReadRoomsChannel.
export class PresenceChannel extends RoomChannel {
  static override channelName = 'presence'
  static override actions: ReadonlySet<string> = new Set(['present', 'absent', 'refresh'])

  override subscribed(): Outcome {
    super.subscribed()
    if (!this.isRejected) return this.present(true)
  }

  override unsubscribed(): Outcome {
    if (!this.isRejected) return this.write('disconnected').then(() => undefined)
  }

  protected override dispatch(action: string): Outcome {
    if (action === 'present') return this.present(false)
    return this.write(action === 'absent' ? 'disconnected' : 'refresh').then(() => undefined)
  }

  private async present(subscribing: boolean): Promise<void> {
    const found = await this.write('present')
    if (!found) {
      if (subscribing) this.reject()
      return
    }
    this.server.broadcast(readRoomsStream(this.user.id), { room_id: this.roomId! })
  }

  private write(verb: Verb): Promise<boolean> {
    const roomId = this.roomId!
    const userId = this.user.id
    return this.server.store.write((m) => connectableFor(m.db)[verb](roomId, userId))
  }
}
