import type { Connection } from '../database.ts'
import { CONNECTION_TTL_MS } from '../membership.ts'
import { dbTime } from '../../lib/time.ts'

// Presence is data on the membership: `connections` counts open tabs and devices, and a
// membership is connected while `connected_at` is younger than CONNECTION_TTL. Each verb is
// one UPDATE, so concurrent sockets of one person never lose a count.
const CONNECTED = 'connected_at IS NOT NULL AND connected_at >= @cutoff'
const WHERE = 'WHERE room_id = @roomId AND user_id = @userId'

export interface PresenceClock {
  now?: number
}

export function connectable(db: Connection) {
  // Membership.connect: a single update_all, so updated_at stays as it was.
  const present = db.prepare(
    `UPDATE memberships SET connections = CASE WHEN ${CONNECTED} THEN connections + 1 ELSE 1 END,
       connected_at = @now, unread_at = NULL ${WHERE}`,
  )
  const connected = db.prepare(
    `UPDATE memberships SET connections = CASE WHEN ${CONNECTED} THEN connections + 1 ELSE 1 END,
       connected_at = @now, updated_at = @now ${WHERE}`,
  )
  // SET sees the old row, so the new count is spelled out again for connected_at.
  const remaining = `CASE WHEN ${CONNECTED} THEN connections - 1 ELSE 0 END`
  const disconnected = db.prepare(
    `UPDATE memberships SET connections = ${remaining},
       connected_at = CASE WHEN ${remaining} < 1 THEN NULL ELSE connected_at END, updated_at = @now ${WHERE}`,
  )
  // An unsubscribe and a subscribe of the same room at once (server/cable/channels/presence-writes.ts):
  // exactly `disconnected` then `present`. The tab's count stays (a count below one, or a lapsed
  // membership, becomes one), connected_at moves, the room is read, and updated_at is touched as
  // `disconnected` touches it.
  const reconnected = db.prepare(
    `UPDATE memberships SET connections = CASE WHEN ${CONNECTED} AND connections > 0 THEN connections ELSE 1 END,
       connected_at = @now, unread_at = NULL, updated_at = @now ${WHERE}`,
  )
  const refresh = db.prepare(
    `UPDATE memberships SET connections = CASE WHEN ${CONNECTED} THEN connections ELSE 1 END,
       connected_at = @now, updated_at = @now ${WHERE}`,
  )

  // A worker process that died held `count` of the membership's connections (server/cluster/):
  // that many `disconnected` in one update.
  const left = `CASE WHEN ${CONNECTED} THEN max(connections - @count, 0) ELSE 0 END`
  const released = db.prepare(
    `UPDATE memberships SET connections = ${left},
       connected_at = CASE WHEN ${left} < 1 THEN NULL ELSE connected_at END, updated_at = @now ${WHERE}`,
  )

  function run(statement: typeof present, roomId: number, userId: number, clock: PresenceClock): boolean {
    const nowMs = clock.now ?? Date.now()
    const now = clock.now === undefined ? dbTime() : dbTime(nowMs * 1000)
    const cutoff = dbTime((nowMs - CONNECTION_TTL_MS) * 1000)
    return statement.run({ roomId, userId, now, cutoff }).changes > 0
  }

  return {
    // Subscribing to presence (and the client's `present`): one more connection, and read.
    present: (roomId: number, userId: number, clock: PresenceClock = {}) => run(present, roomId, userId, clock),
    connected: (roomId: number, userId: number, clock: PresenceClock = {}) => run(connected, roomId, userId, clock),
    // Unsubscribing (and the client's `absent`): one connection fewer; none left, not connected.
    disconnected: (roomId: number, userId: number, clock: PresenceClock = {}) => run(disconnected, roomId, userId, clock),
    reconnected: (roomId: number, userId: number, clock: PresenceClock = {}) => run(reconnected, roomId, userId, clock),
    // Every 50 s from a visible tab: counts again only after the membership had lapsed.
    refresh: (roomId: number, userId: number, clock: PresenceClock = {}) => run(refresh, roomId, userId, clock),
    released(roomId: number, userId: number, count: number, clock: PresenceClock = {}): boolean {
      const nowMs = clock.now ?? Date.now()
      return released.run({ roomId, userId, count, now: dbTime(nowMs * 1000), cutoff: dbTime((nowMs - CONNECTION_TTL_MS) * 1000) }).changes > 0
    },
  }
}

export type Connectable = ReturnType<typeof connectable>

export function isConnected(membership: { connected_at: string | null }, now = Date.now()): boolean {
  return membership.connected_at !== null && membership.connected_at >= dbTime((now - CONNECTION_TTL_MS) * 1000)
}

// Statements are prepared once per connection, whoever asks for them.
const prepared = new WeakMap<Connection, Connectable>()

export function connectableFor(db: Connection): Connectable {
  let statements = prepared.get(db)
  if (!statements) prepared.set(db, (statements = connectable(db)))
  return statements
}
