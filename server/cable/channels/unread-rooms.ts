import { Channel } from '../channel.ts'

// Per user rather than one global stream: a global one would tell every connection when any
// room is active, closed rooms and other people's direct conversations included.
// A post notifies every member of its room: the names are made once per person, so a fan-out to
// a thousand members looks each one up by a string whose hash V8 has already computed.
const NAMES = new Map<number, string>()
const MAX_NAMES = 100_000

export function unreadRoomsStream(userId: number): string {
  let name = NAMES.get(userId)
  if (name === undefined) {
    if (NAMES.size >= MAX_NAMES) NAMES.clear()
    NAMES.set(userId, (name = `user_${userId}_unreads`))
  }
  return name
}

export class UnreadRoomsChannel extends Channel {
  override subscribed(): void {
    this.streamFrom(unreadRoomsStream(this.user.id))
  }
}
