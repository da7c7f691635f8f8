import { Channel } from '../channel.ts'
import { isGuardedStream, verifiedStreamName } from './room-messages.ts'
import { inboxStream, isInboxStream } from '../user-streams.ts'

// Turbo's stock channel: the signature is the whole check, which is fine for the room lists
// ("rooms", "<user gid>:rooms") but not for room messages, so those names are turned away, nor for
// an inbox, which only its own person may hear.
export class TurboStreamsChannel extends Channel {
  override subscribed(): void {
    const streamName = verifiedStreamName(this)
    if (!streamName || isGuardedStream(streamName)) return this.reject()
    if (isInboxStream(streamName) && streamName !== inboxStream(this.user.id)) return this.reject()
    this.streamFrom(streamName)
  }
}
