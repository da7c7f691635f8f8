import type { Connection } from '../database.ts'
import type { Involvement } from '../membership.ts'
import { ROOM_TYPES, type RoomRow } from '../room.ts'
import { defaultInvolvement } from '../room/memberships.ts'
import { normalizeEmail } from '../user.ts'
import { dbTime } from '../../lib/time.ts'
import { directRoomName } from '../../lib/sentence.ts'
import { EmailTaken } from '../user.ts'

export const BIO_LIMIT = 200

// What a person may change about themselves; a field left out stays as it is.
export interface ProfileChanges {
  name?: string
  emailAddress?: string
  passwordDigest?: string
  bio?: string
}

export interface ProfileMembership {
  room: RoomRow
  displayName: string
  involvement: Involvement
}

// The profile: a person's own name, email, password and bio, and the rooms they are in with
// how much each one notifies them.
export function profiles(db: Connection) {
  const update = db.prepare(
    `UPDATE users SET name = coalesce(?, name), email_address = coalesce(?, email_address),
     password_digest = coalesce(?, password_digest), bio = coalesce(?, bio), updated_at = ? WHERE id = ?`,
  )
  const emailTaken = db.prepare<[string, number], number>('SELECT 1 FROM users WHERE email_address = ? COLLATE NOCASE AND id != ?').pluck()
  const memberships = db.prepare<[number], RoomRow & { involvement: Involvement | null }>(
    `SELECT rooms.id, rooms.name, rooms.type, rooms.creator_id, rooms.created_at, rooms.updated_at, memberships.involvement
     FROM memberships JOIN rooms ON rooms.id = memberships.room_id
     WHERE memberships.user_id = ? ORDER BY lower(rooms.name), rooms.id`,
  )
  const directOthers = db.prepare<[number, number], { room_id: number; name: string }>(
    `SELECT others.room_id, users.name FROM memberships mine
     JOIN rooms ON rooms.id = mine.room_id AND rooms.type = 'Rooms::Direct'
     JOIN memberships others ON others.room_id = mine.room_id AND others.user_id != mine.user_id
     JOIN users ON users.id = others.user_id
     WHERE mine.user_id = ? AND users.id != ? ORDER BY others.room_id, others.id`,
  )

  return {
    // Throws EmailTaken when someone else has the address (compared as sign-in compares it).
    update(userId: number, changes: ProfileChanges): void {
      if (Object.values(changes).every((value) => value === undefined)) return
      const emailAddress = changes.emailAddress === undefined ? null : normalizeEmail(changes.emailAddress)
      if (emailAddress !== null && emailTaken.get(emailAddress, userId) !== undefined) throw new EmailTaken()
      try {
        update.run(changes.name ?? null, emailAddress, changes.passwordDigest ?? null, changes.bio ?? null, dbTime(), userId)
      } catch (error) {
        if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') throw new EmailTaken()
        throw error
      }
    },

    // Every room the person is in, invisible ones too, shared rooms first and then pings, each
    // group by name; a ping is named for the others in it.
    memberships(user: { id: number; name: string }): { shared: ProfileMembership[]; directs: ProfileMembership[] } {
      const others = new Map<number, { name: string }[]>()
      for (const row of directOthers.all(user.id, user.id)) others.set(row.room_id, [...(others.get(row.room_id) ?? []), { name: row.name }])
      const all = memberships.all(user.id).map(({ involvement, ...room }) => {
        const direct = room.type === ROOM_TYPES.direct
        const displayName = direct ? directRoomName(others.get(room.id) ?? [], user.name) : (room.name ?? '')
        return { room, displayName, involvement: involvement ?? defaultInvolvement(room.type) }
      })
      const directs = all.filter((m) => m.room.type === ROOM_TYPES.direct).sort((a, b) => a.displayName.toLowerCase().localeCompare(b.displayName.toLowerCase()))
      return { shared: all.filter((m) => m.room.type !== ROOM_TYPES.direct), directs }
    },
  }
}
