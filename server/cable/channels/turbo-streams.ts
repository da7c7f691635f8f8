import { Channel } from '../channel.ts'
import { isGuardedStream, verifiedStreamName } from './room-messages.ts'

// Turbo's stock channel: the signature is the whole check, which is fine for the room lists
// ("rooms", "<user gid>:rooms") but not for room messages, so those names are turned away.
export class TurboStreamsChannel extends Channel {
  override subscribed(): void {
    const streamName = verifiedStreamName(this)
    if (!streamName || isGuardedStream(streamName)) return this.reject()
    this.streamFrom(streamName)
  }
}
