import { connectableFor, type Connectable } from '../../models/membership/connectable.ts'
import { workerConnectionsFor, type WorkerConnections } from '../../models/membership/worker-connections.ts'
import type { Store } from '../../models/store.ts'
import { account, enter, tally } from '../../lib/cpu-ledger.ts'

// The CPU ledger's account (lib/cpu-ledger.ts): the updates inside the writer's transaction.
const PRESENCE = account('presence writes')

// What a presence command does to its membership (Membership::Connectable's verbs), plus
// `reconnected`: an unsubscribe and a subscribe of the same room, folded into one update.
export type PresenceVerb = 'present' | 'disconnected' | 'refresh'
type Applied = PresenceVerb | 'reconnected'

export interface PresenceTouch {
  verb: PresenceVerb
  roomId: number
  userId: number
}

// The updates a run of touches needs, in order, each with the touches it answers for (every
// touch is answered with its update's "found"). Touches of one membership keep their order;
// memberships are independent rows, so one membership's touches run together. Within one
// membership two folds keep Connectable's meaning exactly:
//   disconnected, present → reconnected (the count stays, connected_at moves, the room is read);
//   refresh, refresh      → refresh (the second finds the membership connected and only stamps it).
export function foldTouches(touches: readonly PresenceTouch[]): { verb: Applied; roomId: number; userId: number; answers: number[] }[] {
  const byMembership = new Map<string, number[]>()
  touches.forEach((touch, i) => {
    const key = `${touch.roomId}:${touch.userId}`
    const list = byMembership.get(key)
    if (list) list.push(i)
    else byMembership.set(key, [i])
  })
  const updates: { verb: Applied; roomId: number; userId: number; answers: number[] }[] = []
  for (const indexes of byMembership.values()) {
    const { roomId, userId } = touches[indexes[0]!]!
    let last: (typeof updates)[number] | null = null
    for (const i of indexes) {
      const verb = touches[i]!.verb
      if (last && last.verb === 'disconnected' && verb === 'present') last.verb = 'reconnected'
      else if (last && last.verb === 'refresh' && verb === 'refresh') {
        // folded into the refresh before it
      } else {
        last = { verb, roomId, userId, answers: [] }
        updates.push(last)
      }
      last.answers.push(i)
    }
  }
  return updates
}

interface Pending {
  touches: PresenceTouch[]
  results: Promise<boolean[]>
}

// Presence writes go through the writer like every write. Each navigation unsubscribes one
// room's presence and subscribes the next in one burst of commands; the touches of one
// synchronous run are sent to the writer as one write (so one update per membership at most,
// folded as above) at the place in the writer's queue of the first of them, which is where
// the writer would have run them anyway: they all arrived before it flushes.
export class PresenceWrites {
  private pending: Pending | null = null
  // A cluster's worker process id: its share of each count is kept with the count
  // (models/membership/worker-connections.ts), for its supervisor to release if it dies.
  worker: number | null = null

  constructor(private readonly store: Store) {}

  touch(verb: PresenceVerb, roomId: number, userId: number): Promise<boolean> {
    let pending = this.pending
    if (!pending) {
      const touches: PresenceTouch[] = []
      const started = { touches, results: null as unknown as Promise<boolean[]> }
      started.results = this.store.write((m) => {
        // Once the write runs, later touches start a write of their own.
        if (this.pending === started) this.pending = null
        const was = enter(PRESENCE)
        tally(PRESENCE, touches.length)
        const found = applyTouches(connectableFor(m.db), touches)
        if (this.worker !== null) keepShare(workerConnectionsFor(m.db), this.worker, touches, found)
        enter(was)
        return found
      })
      pending = this.pending = started
      // The run ends at the next microtask checkpoint; touches after it start a new write.
      queueMicrotask(() => {
        if (this.pending === started) this.pending = null
      })
    }
    const index = pending.touches.push({ verb, roomId, userId }) - 1
    return pending.results.then((results) => results[index]!)
  }
}

export function applyTouches(connectable: Connectable, touches: readonly PresenceTouch[]): boolean[] {
  const results: boolean[] = new Array(touches.length)
  for (const update of foldTouches(touches)) {
    const found = connectable[update.verb](update.roomId, update.userId)
    for (const i of update.answers) results[i] = found
  }
  return results
}

// A worker's share moves with every `present` and `disconnected` that found its membership.
function keepShare(shares: WorkerConnections, worker: number, touches: readonly PresenceTouch[], found: readonly boolean[]): void {
  for (let i = 0; i < touches.length; i++) {
    const { verb, roomId, userId } = touches[i]!
    if (found[i] && verb !== 'refresh') shares.change(worker, roomId, userId, verb === 'present' ? 1 : -1)
  }
}

const perStore = new WeakMap<Store, PresenceWrites>()

export function presenceWrites(store: Store): PresenceWrites {
  let writes = perStore.get(store)
  if (!writes) perStore.set(store, (writes = new PresenceWrites(store)))
  return writes
}
