import type { Outcome } from '../command-queue.ts'
import { RoomChannel } from './room.ts'

// Everyone on the room's stream hears who started or stopped typing, the typist included
// (their client ignores its own notices).
//
// The page sends a start at most once a second while its composer has text, and a stop when
// it is emptied or sent, so notices are paced per socket (CableConnection#admitTypingNotice):
// beyond the pace they are dropped, and a socket far beyond it is disconnected. The one
// exception is a stop that ends a start this subscription broadcast: it is always let through
// and costs nothing, so a burst of starts can never leave a name showing as typing. Each such
// stop follows a start that did pay, so a socket is still heard at most twice per token.
export class TypingNotificationsChannel extends RoomChannel {
  static override channelName = 'typing_notifications'
  static override actions: ReadonlySet<string> = new Set(['start', 'stop'])

  // Whether the last notice broadcast for this subscription was a start.
  private started = false

  protected override dispatch(action: string): Outcome {
    const endsStart = action === 'stop' && this.started
    if (!endsStart && !this.connection.admitTypingNotice()) return
    this.started = action === 'start'
    const { id, name } = this.user
    this.server.broadcast(this.roomStream, { action, user: { id, name } })
  }
}
