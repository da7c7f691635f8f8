import type { FastifyInstance } from 'fastify'
import type { RoomRow, RoomType } from '../../models/room.ts'
import { turboStream } from '../../rendering/turbo-streams.ts'

// Keeps every open sidebar in step with the room list. Open rooms go to the global "rooms"
// stream; closed and direct rooms only to their members' own streams, since a private room's
// name must not reach people who are not in it.
export function sidebarBroadcasts(app: FastifyInstance) {
  const memberIds = (roomId: number) => app.store.read((m) => m.memberships.userIdsIn(roomId))
  const audienceOf = (room: RoomRow) => (room.type === 'Rooms::Open' ? 'everyone' : memberIds(room.id))

  function sharedTile(room: RoomRow): string {
    return app.renderPartial('/users/sidebars/rooms/_shared', { room, unread: false })
  }

  function prependShared(room: RoomRow, audience: 'everyone' | number[]): void {
    app.cable.roomCreated(turboStream('prepend', 'shared_rooms', sharedTile(room)), audience)
  }

  return {
    roomCreated(room: RoomRow): void {
      prependShared(room, audienceOf(room))
    },

    // After an open↔closed conversion the sidebars still hold the tile under its old dom id
    // (campfire.md §10 bug 2): remove that one and add the tile under its new id.
    roomUpdated(room: RoomRow, previousType: RoomType, revokedUserIds: number[] = []): void {
      if (previousType !== room.type) {
        app.cable.roomRemoved({ id: room.id, type: previousType }, 'everyone')
        app.cable.roomRemoved({ id: room.id, type: previousType }, memberIds(room.id).concat(revokedUserIds))
        prependShared(room, audienceOf(room))
      } else {
        app.cable.roomUpdated(turboStream('replace', app.helpers.roomDomId(room, 'list'), sharedTile(room)), audienceOf(room))
        if (revokedUserIds.length > 0) app.cable.roomRemoved(room, revokedUserIds)
      }
      // Revoked people lose their subscriptions at once; reconnecting re-authorises the rest.
      for (const userId of revokedUserIds) app.cable.disconnectUser(userId, { reconnect: true, reason: 'remote' })
    },

    roomRemoved(room: Pick<RoomRow, 'id' | 'type'>, formerMemberIds: number[]): void {
      app.cable.roomRemoved(room, 'everyone')
      if (room.type !== 'Rooms::Open') app.cable.roomRemoved(room, formerMemberIds)
    },

    // Each member sees the tile named for the others, so it is rendered per member.
    directCreated(room: RoomRow): void {
      for (const { userId, direct } of app.store.read((m) => m.sidebars.directTilesOf(room))) {
        const tile = app.renderPartial('/users/sidebars/rooms/_direct', { direct })
        app.cable.roomCreated(turboStream('prepend', 'direct_rooms', tile), [userId])
      }
    },

    involvementChanged(room: RoomRow, userId: number, previous: string, next: string): void {
      if (room.type === 'Rooms::Direct' || previous === next) return
      if (next === 'invisible') app.cable.roomRemoved(room, [userId])
      else if (previous === 'invisible') prependShared(room, [userId])
    },
  }
}
