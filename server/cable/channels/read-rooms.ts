import { Channel } from '../channel.ts'
import { readRoomsStream } from '../user-streams.ts'

// The rooms a person reads on another tab or device (CableServer.noticeRead): {"room_id"}.
export class ReadRoomsChannel extends Channel {
  override subscribed(): void {
    this.streamFrom(readRoomsStream(this.user.id))
  }
}
