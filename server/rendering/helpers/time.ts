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

// Made on first use, not at import: the first Intl formatter loads ICU's data, some 50 ms that
// would otherwise stand between a start and the server listening.
let longDateFormat: Intl.DateTimeFormat | undefined
let shortTimeFormat: Intl.DateTimeFormat | undefined

// The day in words (UTC, "March 2, 2026"): what a day separator says until the reader's browser
// puts it in their own time zone and language, so the heading is never empty.
export function longDate(value: string): string {
  longDateFormat ??= new Intl.DateTimeFormat('en-US', { dateStyle: 'long', timeZone: 'UTC' })
  return longDateFormat.format(new Date(parseDbTime(value) ?? 0))
}

// The time of day (UTC, "4:00 PM"), the permalink's text until the browser shows local time.
export function shortTime(value: string): string {
  shortTimeFormat ??= new Intl.DateTimeFormat('en-US', { timeStyle: 'short', timeZone: 'UTC' })
  return shortTimeFormat.format(new Date(parseDbTime(value) ?? 0))
}

// Unix seconds with a fraction, as the unread notices carry them ({"roomId":…,"at":…}).
export function epochSeconds(value: string): number {
  return (parseDbTime(value) ?? 0) / 1000
}

// Makes both formatters, so the first page after a start does not wait for ICU's data either
// (which loads the collation the sidebar sorts by too); the server calls it a moment after it
// listens (main.ts).
export function warmTimeFormats(): void {
  longDate('2000-01-01 00:00:00')
  shortTime('2000-01-01 00:00:00')
}
