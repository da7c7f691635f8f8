import { globalIdParam, parseGlobalIdParam } from '../../lib/rails/signing.ts'
import { ROOM_TYPES, type RoomRow } from '../../models/room.ts'
import type { Store } from '../../models/store.ts'
import { Channel, recordId, type RoomRef } from '../channel.ts'

// Authorizes a room's message stream when the subscription is made, so revoking a membership
// really stops delivery. A signed stream name carries no expiry and no user, so one harvested
// while a member would otherwise keep working afterwards (and a revoked member is sent back
// with reconnect: true, replaying every subscription). The room comes from the verified name,
// so there is nothing for the subscriber to point elsewhere; Turbo::StreamsChannel refuses
// these names, which makes this channel the only door to them.
export const MESSAGES_SUFFIX = 'messages'
const ROOM_MODELS = new Set<string>(['Room', ...Object.values(ROOM_TYPES)])

export function messagesStream(room: RoomRef): string {
  return `${globalIdParam(room.type, room.id)}:${MESSAGES_SUFFIX}`
}

// True for the stream names this channel guards, whoever asks ("<gid>:messages").
export function isGuardedStream(streamName: string): boolean {
  const colon = streamName.indexOf(':')
  return colon >= 0 && streamName.slice(colon + 1) === MESSAGES_SUFFIX
}

export function subscribableRoom(store: Store, userId: number, streamName: string): RoomRow | undefined {
  if (!isGuardedStream(streamName)) return undefined
  const gid = parseGlobalIdParam(streamName.slice(0, streamName.indexOf(':')))
  const id = gid && ROOM_MODELS.has(gid.model) ? recordId(gid.id) : null
  if (id === null) return undefined
  const room = store.read((m) => m.rooms.findForUser(id, userId))
  // GlobalID locates through the named class, so a room since converted to another type is gone.
  return room && (gid!.model === 'Room' || gid!.model === room.type) ? room : undefined
}

export class RoomMessagesChannel extends Channel {
  override subscribed(): void {
    const streamName = verifiedStreamName(this)
    const room = streamName ? subscribableRoom(this.server.store, this.user.id, streamName) : undefined
    if (!room) return this.reject()
    this.roomId = room.id
    this.streamFrom(messagesStream(room))
  }
}

export function verifiedStreamName(channel: Channel): string | undefined {
  const signed = channel.params.signed_stream_name
  return typeof signed === 'string' ? channel.server.signing.verifyStreamName(signed) : undefined
}
