import { parseDbTime } from '../../lib/time.ts'

// Milliseconds since the epoch, as Rails' to_fs(:epoch) writes them in data attributes.
export function epochMs(value: string): number {
  return Math.floor(parseDbTime(value) ?? 0)
}

// Time#iso8601 in UTC: seconds precision with a Z.
export function iso8601(value: string): string {
  const ms = parseDbTime(value) ?? 0
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z')
}

// Unix seconds with a fraction, as the unread notices carry them ({"roomId":…,"at":…}).
export function epochSeconds(value: string): number {
  return (parseDbTime(value) ?? 0) / 1000
}
