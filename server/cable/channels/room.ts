import type { RoomRow } from '../../models/room.ts'
import { Channel, recordId } from '../channel.ts'

// The base for channels about one room: the room must be one of the subscriber's rooms.
export class RoomChannel extends Channel {
  static override channelName = 'room'

  override subscribed(): void {
    const room = this.findRoom()
    if (!room) return this.reject()
    this.roomId = room.id
    this.streamFor(room)
  }

  private findRoom(): RoomRow | undefined {
    const id = recordId(this.params.room_id)
    return id === null ? undefined : this.server.store.read((m) => m.rooms.findForUser(id, this.user.id))
  }

  // The room's own stream ("<channel name>:<room gid>"), which a subscribed channel streams from.
  protected get roomStream(): string {
    return this.streams[0]!
  }
}
