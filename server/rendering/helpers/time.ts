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

const LONG_DATE = new Intl.DateTimeFormat('en-US', { dateStyle: 'long', timeZone: 'UTC' })

// The day in words (UTC, "March 2, 2026"): what a day separator says until the reader's browser
// puts it in their own time zone and language, so the heading is never empty.
export function longDate(value: string): string {
  return LONG_DATE.format(new Date(parseDbTime(value) ?? 0))
}

const SHORT_TIME = new Intl.DateTimeFormat('en-US', { timeStyle: 'short', timeZone: 'UTC' })

// The time of day (UTC, "4:00 PM"), the permalink's text until the browser shows local time.
export function shortTime(value: string): string {
  return SHORT_TIME.format(new Date(parseDbTime(value) ?? 0))
}

// Unix seconds with a fraction, as the unread notices carry them ({"roomId":…,"at":…}).
export function epochSeconds(value: string): number {
  return (parseDbTime(value) ?? 0) / 1000
}
