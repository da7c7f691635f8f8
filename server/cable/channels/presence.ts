import { logWriteFailure } from '../../lib/disk-space.ts'
import type { Outcome } from '../command-queue.ts'
import { presenceWrites, type PresenceVerb } from './presence-writes.ts'
import { RoomChannel } from './room.ts'

// Presence is written to the membership (through the writer, like every write); nothing is
// ever broadcast on the presence stream itself. Becoming present also reads the room, which
// the user's other tabs and devices hear about on their ReadRoomsChannel.
//
// Only becoming present is waited for (a subscription is confirmed, or rejected, once its write
// has found the membership). Leaving, `absent` and `refresh` are queued to the writer, which
// keeps them in order with every later write, and the next command runs at once: a navigation's
// unsubscribe and subscribe then reach the writer together, as one write (presence-writes.ts).
export class PresenceChannel extends RoomChannel {
  static override channelName = 'presence'
  static override actions: ReadonlySet<string> = new Set(['present', 'absent', 'refresh'])

  override subscribed(): Outcome {
    super.subscribed()
    if (!this.isRejected) return this.present(true)
  }

  override unsubscribed(): Outcome {
    if (!this.isRejected) this.queue('disconnected')
  }

  protected override dispatch(action: string): Outcome {
    if (action === 'present') return this.present(false)
    this.queue(action === 'absent' ? 'disconnected' : 'refresh')
  }

  private async present(subscribing: boolean): Promise<void> {
    const found = await this.write('present')
    if (!found) {
      if (subscribing) this.reject()
      return
    }
    // Back on a tab hidden for a while, the page reloads its sidebar: what it was told unread
    // may show read again, so it is told anew.
    if (!subscribing) this.connection.forgetUnreadNotices()
    this.server.noticeRead(this.user.id, this.roomId!)
  }

  private queue(verb: PresenceVerb): void {
    this.write(verb).catch((err: unknown) => logWriteFailure(this.connection.log, err, { identifier: this.identifier, verb }, 'cable: presence write failed'))
  }

  private write(verb: PresenceVerb): Promise<boolean> {
    return presenceWrites(this.server.store).touch(verb, this.roomId!, this.user.id)
  }
}
