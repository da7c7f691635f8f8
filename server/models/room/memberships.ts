import type { Connection } from '../database.ts'
import type { Involvement } from '../membership.ts'
import { ROOM_TYPES } from '../room.ts'
import { dbTime } from '../../lib/time.ts'

export interface Revision {
  granted?: number[]
  revoked?: number[]
}

export interface Candidate {
  id: number
  name: string
  bio: string | null
  updated_at: string
  selected: 0 | 1
}

export function defaultInvolvement(roomType: string): Involvement {
  return roomType === ROOM_TYPES.direct ? 'everything' : 'mentions'
}

// Lists of user ids travel as one JSON parameter, so each statement is prepared once.
const ids = (userIds: readonly number[]) => JSON.stringify([...new Set(userIds)])

// A room's memberships, granted and revoked in bulk (upstream's grant_to, revoke_from, revise).
export function roomMemberships(db: Connection) {
  const roomType = db.prepare<[number], string>('SELECT type FROM rooms WHERE id = ?').pluck()
  const grant = db.prepare<[number, Involvement, string, string, string], number>(
    `INSERT INTO memberships (room_id, user_id, involvement, connections, created_at, updated_at)
     SELECT ?, users.id, ?, 0, ?, ? FROM users WHERE users.status = 0 AND users.id IN (SELECT value FROM json_each(?))
     ON CONFLICT (room_id, user_id) DO NOTHING RETURNING user_id`,
  ).pluck()
  const revoke = db.prepare<[number, string], number>(
    'DELETE FROM memberships WHERE room_id = ? AND user_id IN (SELECT value FROM json_each(?)) RETURNING user_id',
  ).pluck()
  const others = db.prepare<[number, string], number>(
    'SELECT user_id FROM memberships WHERE room_id = ? AND user_id NOT IN (SELECT value FROM json_each(?)) ORDER BY user_id',
  ).pluck()
  const userIds = db.prepare<[number], number>('SELECT user_id FROM memberships WHERE room_id = ? ORDER BY user_id').pluck()
  const members = db.prepare<[number], Omit<Candidate, 'selected'>>(
    `SELECT users.id, users.name, users.bio, users.updated_at FROM memberships JOIN users ON users.id = memberships.user_id
     WHERE memberships.room_id = ? ORDER BY memberships.id`,
  )
  const candidates = db.prepare<[number], Candidate>(
    `SELECT users.id, users.name, users.bio, users.updated_at,
       EXISTS (SELECT 1 FROM memberships WHERE memberships.room_id = ? AND memberships.user_id = users.id) AS selected
     FROM users WHERE users.status = 0 ORDER BY LOWER(users.name), users.id`,
  )

  // Only active people are granted; returns the ids that were not members before.
  function grantTo(roomId: number, grantees: readonly number[]): number[] {
    const type = roomType.get(roomId)
    if (type === undefined || grantees.length === 0) return []
    const now = dbTime()
    return grant.all(roomId, defaultInvolvement(type), now, now, ids(grantees))
  }

  // Returns whose access was removed, so the live layer can make them re-authorize their streams.
  function revokeFrom(roomId: number, revokees: readonly number[]): number[] {
    return revokees.length === 0 ? [] : revoke.all(roomId, ids(revokees))
  }

  const revise = db.transaction((roomId: number, revision: Revision) => ({
    granted: grantTo(roomId, revision.granted ?? []),
    revoked: revokeFrom(roomId, revision.revoked ?? []),
  }))

  return {
    grantTo,
    revokeFrom,
    revise: (roomId: number, revision: Revision): { granted: number[]; revoked: number[] } => revise(roomId, revision),
    userIds: (roomId: number): number[] => userIds.all(roomId),
    userIdsExcept: (roomId: number, keep: readonly number[]): number[] => others.all(roomId, ids(keep)),
    members: (roomId: number) => members.all(roomId),
    // Every active person in name order, marked when they are already in the room.
    candidates: (roomId: number | null): Candidate[] => candidates.all(roomId ?? 0),
  }
}
