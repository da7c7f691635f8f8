import { Channel } from '../channel.ts'

// Per user rather than one global stream: a global one would tell every connection when any
// room is active, closed rooms and other people's direct conversations included.
export function unreadRoomsStream(userId: number): string {
  return `user_${userId}_unreads`
}

export class UnreadRoomsChannel extends Channel {
  override subscribed(): void {
    this.streamFrom(unreadRoomsStream(this.user.id))
  }
}
