import { Channel } from '../channel.ts'
import { unreadRoomsStream } from '../user-streams.ts'

// A person's unread notices (CableServer.noticeUnread): {"roomId","at"} for each new message in
// a room they belong to.
export class UnreadRoomsChannel extends Channel {
  override subscribed(): void {
    this.streamFrom(unreadRoomsStream(this.user.id))
  }
}
