import BetterSqlite3 from 'better-sqlite3'
import { statfsSync, statSync } from 'node:fs'
import { dirname } from 'node:path'

// Runs in its own piscina thread with its own connection, so checkpoints never block the
// event loop: PASSIVE normally, TRUNCATE once the WAL has grown past the limit, while the
// disk is short of space (a truncated WAL gives its space back), and after a checkpoint
// failed (a full disk), so the WAL shrinks as soon as space returns.
export interface CheckpointTask {
  path: string
  truncateAboveBytes: number
  // Free space on the database's filesystem below which every checkpoint truncates.
  truncateBelowFreeBytes?: number
  close?: boolean
}

export interface CheckpointResult {
  mode: 'PASSIVE' | 'TRUNCATE'
  busy: number
  log: number
  checkpointed: number
  walBytes: number
  // This checkpoint came after one that failed.
  recovered: boolean
}

let db: BetterSqlite3.Database | null = null
let lastFailed = false

function walBytes(path: string): number {
  try {
    return statSync(`${path}-wal`).size
  } catch {
    return 0
  }
}

function freeBytes(path: string): number {
  try {
    const stats = statfsSync(dirname(path))
    return stats.bavail * stats.bsize
  } catch {
    return Number.POSITIVE_INFINITY
  }
}

function chooseMode(task: CheckpointTask): 'PASSIVE' | 'TRUNCATE' {
  if (lastFailed || walBytes(task.path) > task.truncateAboveBytes) return 'TRUNCATE'
  return task.truncateBelowFreeBytes && freeBytes(task.path) < task.truncateBelowFreeBytes ? 'TRUNCATE' : 'PASSIVE'
}

export default function checkpoint(task: CheckpointTask): CheckpointResult | null {
  if (task.close) {
    db?.close()
    db = null
    return null
  }
  db ??= new BetterSqlite3(task.path, { fileMustExist: true })
  db.pragma('busy_timeout = 2000')
  const mode = chooseMode(task)
  let result: { busy: number; log: number; checkpointed: number } | undefined
  try {
    ;[result] = db.pragma(`wal_checkpoint(${mode})`) as { busy: number; log: number; checkpointed: number }[]
  } catch (error) {
    lastFailed = true
    throw error
  }
  const recovered = lastFailed
  // A TRUNCATE that was busy (a reader or writer in the way) is tried again next time.
  lastFailed = lastFailed && (result?.busy ?? 0) !== 0
  return { mode, busy: result?.busy ?? 0, log: result?.log ?? 0, checkpointed: result?.checkpointed ?? 0, walBytes: walBytes(task.path), recovered: recovered && !lastFailed }
}
