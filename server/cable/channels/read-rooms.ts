import { Channel } from '../channel.ts'

export function readRoomsStream(userId: number): string {
  return `user_${userId}_reads`
}

export class ReadRoomsChannel extends Channel {
  override subscribed(): void {
    this.streamFrom(readRoomsStream(this.user.id))
  }
}
