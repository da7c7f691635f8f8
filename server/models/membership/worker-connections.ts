import type { Connection } from '../database.ts'
import { connectableFor } from './connectable.ts'

// With WEB_CONCURRENCY > 1 every worker adds and removes its own tabs in memberships.connections,
// so tabs on different workers add up. Each worker also keeps its share here, per membership,
// in the transaction that changes the count: a `present` it wrote adds one, a `disconnected`
// takes one away (never below none), a refresh leaves it be. When a worker dies, its share is
// taken off the counts and forgotten in one transaction, so a kill -9 leaves nothing counted
// that no tab holds, however recently the worker wrote. Workers are named by process id, so a
// restarted worker's shares never mix with those of the one it replaces.
export interface WorkerShare {
  roomId: number
  userId: number
  connections: number
}

export function workerConnections(db: Connection) {
  const change = db.prepare(
    `INSERT INTO campfire_worker_connections (worker, room_id, user_id, connections) VALUES (@worker, @roomId, @userId, max(@delta, 0))
     ON CONFLICT (worker, room_id, user_id) DO UPDATE SET connections = max(connections + @delta, 0)`,
  )
  const prune = db.prepare('DELETE FROM campfire_worker_connections WHERE worker = @worker AND room_id = @roomId AND user_id = @userId AND connections = 0')
  const shares = db.prepare<[number], WorkerShare>('SELECT room_id AS roomId, user_id AS userId, connections FROM campfire_worker_connections WHERE worker = ?')
  const forget = db.prepare('DELETE FROM campfire_worker_connections WHERE worker = ?')
  const forgetAll = db.prepare('DELETE FROM campfire_worker_connections')

  return {
    // One more (+1) or one fewer (-1) of the membership's tabs on this worker.
    change(worker: number, roomId: number, userId: number, delta: 1 | -1): void {
      const params = { worker, roomId, userId, delta }
      change.run(params)
      if (delta < 0) prune.run(params)
    },
    of: (worker: number): WorkerShare[] => shares.all(worker),
    // The worker is gone: each membership loses the tabs it held. Returns how many memberships.
    release(worker: number): number {
      const held = shares.all(worker)
      const connectable = connectableFor(db)
      for (const { roomId, userId, connections } of held) connectable.released(roomId, userId, connections)
      forget.run(worker)
      return held.length
    },
    // Presence is reset at boot: no worker holds anything yet.
    forgetAll: (): number => forgetAll.run().changes,
  }
}

export type WorkerConnections = ReturnType<typeof workerConnections>

const prepared = new WeakMap<Connection, WorkerConnections>()

export function workerConnectionsFor(db: Connection): WorkerConnections {
  let statements = prepared.get(db)
  if (!statements) prepared.set(db, (statements = workerConnections(db)))
  return statements
}
