import type { Outcome } from '../command-queue.ts'
import { RoomChannel } from './room.ts'

// Everyone on the room's stream hears who started or stopped typing, the typist included
// (their client ignores its own notices).
export class TypingNotificationsChannel extends RoomChannel {
  static override channelName = 'typing_notifications'
  static override actions: ReadonlySet<string> = new Set(['start', 'stop'])

  protected override dispatch(action: string): Outcome {
    const { id, name } = this.user
    this.server.broadcast(this.roomStream, { action, user: { id, name } })
  }
}
