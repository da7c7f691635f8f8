// Each person's own streams: the unread notices (UnreadRoomsChannel), the rooms they read
// elsewhere (ReadRoomsChannel) and their inbox (a signed Turbo stream, see inboxStream). Per user rather than one global stream: a global one would tell
// every connection when any room is active, closed rooms and other people's Pings included.
// Named here, below the channels, because the server delivers both itself (server.ts).

import { globalIdParam } from '../lib/rails/signing.ts'

const MAX_NAMES = 100_000

// A post notifies every member of its room: each person's stream name is made once, so a
// fan-out to a thousand members looks them up by strings whose hashes V8 already holds.
function memo(make: (userId: number) => string): (userId: number) => string {
  const names = new Map<number, string>()
  return (userId) => {
    let name = names.get(userId)
    if (name === undefined) {
      if (names.size >= MAX_NAMES) names.clear()
      names.set(userId, (name = make(userId)))
    }
    return name
  }
}

export const unreadRoomsStream = memo((userId) => `user_${userId}_unreads`)

export const readRoomsStream = memo((userId) => `user_${userId}_reads`)

// A person's inbox (routes/users/mentions.ts) on the stock Turbo channel, whose signature is its
// only check: only its own person may subscribe to it (TurboStreamsChannel), so a signed name that
// reached anyone else is of no use to them.
const INBOX_SUFFIX = ':mentions'

export const inboxStream = memo((userId) => `${globalIdParam('User', userId)}${INBOX_SUFFIX}`)

export function isInboxStream(streamName: string): boolean {
  return streamName.endsWith(INBOX_SUFFIX)
}
