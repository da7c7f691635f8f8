import { globalIdParam } from '../lib/rails/signing.ts'
import { boostDomId, messageDomId, roomDomId } from '../rendering/helpers/dom.ts'
import { turboStream, turboStreamRemove } from '../rendering/turbo-streams.ts'
import { INBOX_ENTRIES } from '../rendering/inbox-entries.ts'
import { ROOM_TYPES } from '../models/room.ts'
import type { RoomRef } from './channel.ts'
import { messagesStream } from './channels/room-messages.ts'
import { inboxStream } from './user-streams.ts'
import type { CableServer } from './server.ts'

export interface MessageRef {
  client_message_id: string
}

// Who sees a change to the room list: everyone on the global "rooms" stream (open rooms),
// or each listed user on their own "<user gid>:rooms" stream (closed and direct rooms).
export type RoomAudience = 'everyone' | Iterable<number>

export function roomsStreams(audience: RoomAudience): string[] {
  return audience === 'everyone' ? ['rooms'] : [...audience].map((userId) => `${globalIdParam('User', userId)}:rooms`)
}

// What the routes publish after a write. Each takes HTML already rendered (once, and free of
// anything about the viewer); the envelopes that need only ids are built here. Each returns
// the number of sockets written to.
export function createBroadcasts(server: CableServer) {
  return {
    // The turbo-stream `append` the POST answers with, sent as it is.
    messageCreated: (room: RoomRef, appendStreamHtml: string): number => server.broadcast(messagesStream(room), appendStreamHtml),

    // `presentationHtml` is messages/_presentation; it replaces presentation_message_<cid>.
    messageUpdated: (room: RoomRef, message: MessageRef, presentationHtml: string): number =>
      server.broadcast(messagesStream(room), turboStream('replace', messageDomId(message, 'presentation'), presentationHtml, { maintain_scroll: 'true' })),

    messageRemoved: (room: RoomRef, message: MessageRef): number => server.broadcast(messagesStream(room), turboStreamRemove(messageDomId(message))),

    // `boostHtml` is messages/boosts/_boost; it is appended to boosts_message_<cid>.
    boostCreated: (room: RoomRef, message: MessageRef, boostHtml: string): number =>
      server.broadcast(messagesStream(room), turboStream('append', messageDomId(message, 'boosts'), boostHtml, { maintain_scroll: 'true' })),

    boostRemoved: (room: RoomRef, boostId: number): number => server.broadcast(messagesStream(room), turboStreamRemove(boostDomId({ id: boostId }))),

    // To every member, sender and present members included, on their own stream. `at` is the
    // message's created_at in Unix seconds (a float). A socket that was told of an open or closed
    // room already, and has not shown it since, is not told again: its sidebar shows it unread
    // (CableServer.noticeUnread).
    unreadRoom: (room: RoomRef, memberUserIds: readonly number[], at: number): number =>
      server.noticeUnread({ roomId: room.id, at, shared: room.type !== ROOM_TYPES.direct, userIds: memberUserIds }),

    // `entryHtml` is an inbox entry (rendering/inbox-entries.ts); it goes first in the person's inbox.
    inboxEntered: (userId: number, entryHtml: string): number => server.broadcast(inboxStream(userId), turboStream('prepend', INBOX_ENTRIES, entryHtml)),

    // A turbo-stream `prepend` of the sidebar tile (to shared_rooms or direct_rooms).
    roomCreated: (prependStreamHtml: string, audience: RoomAudience): number => server.broadcastMany(roomsStreams(audience), prependStreamHtml),

    // A turbo-stream `replace` of list_<room dom id>.
    roomUpdated: (replaceStreamHtml: string, audience: RoomAudience): number => server.broadcastMany(roomsStreams(audience), replaceStreamHtml),

    // Removes list_<room dom id>; pass the type the sidebars know the room by.
    roomRemoved: (room: RoomRef, audience: RoomAudience): number => server.broadcastMany(roomsStreams(audience), turboStreamRemove(roomDomId(room, 'list'))),
  }
}

export type Broadcasts = ReturnType<typeof createBroadcasts>
