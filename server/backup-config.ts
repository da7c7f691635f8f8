// BACKUP_SCHEDULE, BACKUP_KEEP and BACKUP_DESTINATION (with BACKUP_S3_ENDPOINT and
// BACKUP_S3_REGION for an s3:// one): when the server takes backups by itself, how many it
// keeps, and where it puts them. Read once at boot; a value it cannot use is a BackupSettingsError
// (config.ts makes it the one line the server stops with).
import { Cron } from 'croner'
import { isAbsolute, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

type Env = Record<string, string | undefined>

export class BackupSettingsError extends Error {}

// Keep the newest `count` backups, or those younger than `ageMs`.
export type Retention = { count: number } | { ageMs: number }

export type BackupDestination = { kind: 'folder'; path: string } | { kind: 's3'; bucket: string; prefix: string; endpoint: string | null; region: string }

export interface BackupSettings {
  // The cron pattern croner runs (BACKUP_SCHEDULE as given, or what `daily 03:00` stands for).
  readonly pattern: string
  readonly schedule: string
  readonly keep: Retention
  readonly destination: BackupDestination
}

export const DEFAULT_KEEP = 7
const MAX_KEEP = 10_000
const AGE_UNITS: Record<string, number> = { h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 }

// null when BACKUP_SCHEDULE is unset: no backups are taken by the server.
export function readBackupSettings(env: Env, storagePath: string, filesPath: string): BackupSettings | null {
  const schedule = env.BACKUP_SCHEDULE?.trim() || null
  if (schedule === null) {
    for (const name of ['BACKUP_KEEP', 'BACKUP_DESTINATION'] as const)
      if (env[name]?.trim()) throw new BackupSettingsError(`${name} is set but BACKUP_SCHEDULE is not: set BACKUP_SCHEDULE (e.g. "daily 03:00") for the server to take backups`)
    return null
  }
  return Object.freeze({
    schedule,
    pattern: readSchedule(schedule),
    keep: readKeep(env.BACKUP_KEEP),
    destination: readDestination(env, storagePath, filesPath),
  })
}

// `daily HH:MM`, `hourly`, or a cron expression: five fields, or six with seconds first.
export function readSchedule(value: string): string {
  const daily = /^daily\s+(\d{1,2}):(\d{2})$/i.exec(value)
  let pattern = value
  if (daily) {
    const [hours, minutes] = [Number(daily[1]), Number(daily[2])]
    if (hours > 23 || minutes > 59) throw new BackupSettingsError(`BACKUP_SCHEDULE "${value}" is not a time of day: use daily HH:MM, 00:00 to 23:59`)
    pattern = `${minutes} ${hours} * * *`
  } else if (/^hourly$/i.test(value)) {
    pattern = '0 * * * *'
  } else if (!/^(\S+\s+){4,5}\S+$/.test(value)) {
    throw new BackupSettingsError(`BACKUP_SCHEDULE must be "daily HH:MM", "hourly" or a cron expression of 5 or 6 fields, got "${value}"`)
  }
  try {
    const cron = new Cron(pattern, { paused: true })
    if (cron.nextRun() === null) throw new Error('it never fires')
  } catch (error) {
    throw new BackupSettingsError(`BACKUP_SCHEDULE "${value}" is not a schedule: ${(error as Error).message}`)
  }
  return pattern
}

// A count of backups (1 or more), or an age: 36h, 30d, 8w.
export function readKeep(value: string | undefined): Retention {
  const text = value?.trim() || null
  if (text === null) return { count: DEFAULT_KEEP }
  if (/^\d+$/.test(text)) {
    const count = Number(text)
    if (count >= 1 && count <= MAX_KEEP) return { count }
  }
  const age = /^(\d+)\s*([hdw])$/i.exec(text)
  if (age && Number(age[1]) >= 1) return { ageMs: Number(age[1]) * AGE_UNITS[age[2]!.toLowerCase()]! }
  throw new BackupSettingsError(`BACKUP_KEEP must be a number of backups from 1 to ${MAX_KEEP}, or an age such as 36h, 30d or 8w, got "${text}"`)
}

// A folder (a path, or file:///path), or s3://bucket/prefix; default <storage>/backups.
export function readDestination(env: Env, storagePath: string, filesPath: string): BackupDestination {
  const value = env.BACKUP_DESTINATION?.trim() || null
  if (value === null) return { kind: 'folder', path: join(storagePath, 'backups') }
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(value)?.[1]?.toLowerCase()
  if (scheme === undefined) return folder(resolve(value), filesPath)
  if (scheme === 'file') return folder(fileURLToPath(value), filesPath)
  if (scheme !== 's3') throw new BackupSettingsError(`BACKUP_DESTINATION must be a folder, a file:// URL or an s3://bucket/prefix URL, got a ${scheme}:// URL`)
  const s3 = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(value)
  if (!s3) throw new BackupSettingsError(`BACKUP_DESTINATION "${value}" is not s3://bucket/prefix with a valid bucket name`)
  return { kind: 's3', bucket: s3[1]!, prefix: (s3[2] ?? '').replace(/^\/+|\/+$/g, ''), endpoint: readEndpoint(env.BACKUP_S3_ENDPOINT), region: env.BACKUP_S3_REGION?.trim() || 'us-east-1' }
}

function folder(path: string, filesPath: string): BackupDestination {
  const inside = relative(filesPath, path)
  if (inside === '' || (!inside.startsWith('..') && !isAbsolute(inside))) throw new BackupSettingsError(`BACKUP_DESTINATION ${path} is inside the files folder it backs up (${filesPath})`)
  return { kind: 'folder', path }
}

function readEndpoint(value: string | undefined): string | null {
  const text = value?.trim() || null
  if (text === null) return null
  try {
    const url = new URL(text)
    if (url.protocol === 'http:' || url.protocol === 'https:') return text
  } catch {
    // Said below.
  }
  throw new BackupSettingsError(`BACKUP_S3_ENDPOINT must be an http:// or https:// URL, got "${text}"`)
}
