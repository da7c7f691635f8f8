import { statSync } from 'node:fs'
import type { Registry } from 'prom-client'
import { HistogramCells } from '../../lib/histogram-cells.ts'
import type { Store } from '../../models/store.ts'
import type { Checkpointer } from '../database.ts'
import { counterFrom, gaugeFrom } from './registry.ts'

const SECONDS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1]

export interface StorageFigures {
  store: Store
  databasePath: string
  // This process's checkpointer: null in a cluster's worker, or while Litestream checkpoints.
  checkpointer: Checkpointer | null
}

// The single writer (its queue and its transactions), the WAL and its checkpoints. Every
// process has its own writer; one of them (the only one, or a cluster's primary) checkpoints.
export function countStorage(registry: Registry, { store, databasePath, checkpointer }: StorageFigures): void {
  const writer = store.writer
  const transactions = new HistogramCells('campfire_writer_transaction_seconds', "Time each of the writer's transactions (a batch of writes committed together) took", SECONDS)
  writer.measureTransactions(transactions.cell({}))
  registry.registerMetric(transactions as never)
  gaugeFrom(registry, { name: 'campfire_writer_queue_depth', help: 'Writes waiting for the writer' }, () => writer.pending)
  counterFrom(registry, { name: 'campfire_writer_writes_total', help: 'Writes committed' }, () => writer.stats.writes)
  counterFrom(registry, { name: 'campfire_writer_lock_waits_total', help: "Times a batch found the database's write lock held by another connection and waited" }, () => writer.stats.lockWaits)
  gaugeFrom(registry, { name: 'campfire_wal_bytes', help: 'Size of the database file\'s write-ahead log', aggregator: 'max' }, () => fileSize(`${databasePath}-wal`))
  gaugeFrom(registry, { name: 'campfire_database_bytes', help: 'Size of the database file', aggregator: 'max' }, () => fileSize(databasePath))
  if (checkpointer === null) return
  counterFrom(registry, { name: 'campfire_wal_checkpoints_total', help: 'WAL checkpoints, by whether they truncated the WAL', labelNames: ['mode'] }, () => [
    [{ mode: 'passive' }, checkpointer.stats.runs - checkpointer.stats.truncated],
    [{ mode: 'truncate' }, checkpointer.stats.truncated],
  ])
  counterFrom(registry, { name: 'campfire_wal_checkpoint_failures_total', help: 'WAL checkpoints that failed (a full disk)' }, () => checkpointer.stats.failed)
}

function fileSize(path: string): number {
  try {
    return statSync(path).size
  } catch {
    return 0
  }
}
