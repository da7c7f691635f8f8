import BetterSqlite3 from 'better-sqlite3'
import { statSync } from 'node:fs'

// Runs in its own piscina thread with its own connection, so checkpoints never block the
// event loop: PASSIVE normally, TRUNCATE once the WAL has grown past the limit.
export interface CheckpointTask {
  path: string
  truncateAboveBytes: number
  close?: boolean
}

export interface CheckpointResult {
  mode: 'PASSIVE' | 'TRUNCATE'
  busy: number
  log: number
  checkpointed: number
  walBytes: number
}

let db: BetterSqlite3.Database | null = null

function walBytes(path: string): number {
  try {
    return statSync(`${path}-wal`).size
  } catch {
    return 0
  }
}

export default function checkpoint(task: CheckpointTask): CheckpointResult | null {
  if (task.close) {
    db?.close()
    db = null
    return null
  }
  db ??= new BetterSqlite3(task.path, { fileMustExist: true })
  db.pragma('busy_timeout = 2000')
  const mode = walBytes(task.path) > task.truncateAboveBytes ? 'TRUNCATE' : 'PASSIVE'
  const [result] = db.pragma(`wal_checkpoint(${mode})`) as { busy: number; log: number; checkpointed: number }[]
  return { mode, busy: result?.busy ?? 0, log: result?.log ?? 0, checkpointed: result?.checkpointed ?? 0, walBytes: walBytes(task.path) }
}
