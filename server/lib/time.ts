// Rails stores datetime(6) columns as "YYYY-MM-DD HH:MM:SS.ffffff" in UTC. Pages are ordered by
// created_at, so timestamps we write are kept strictly increasing at microsecond precision.
let lastMicros = 0

export function nowMicros(clock: () => number = Date.now): number {
  const micros = Math.max(clock() * 1000, lastMicros + 1)
  lastMicros = micros
  return micros
}

export function dbTime(micros: number = nowMicros()): string {
  const date = new Date(Math.floor(micros / 1000))
  const fraction = String(Math.floor(micros) % 1_000_000).padStart(6, '0')
  return `${date.toISOString().slice(0, 19).replace('T', ' ')}.${fraction}`
}

export function dbTimeFromDate(date: Date): string {
  return dbTime(date.getTime() * 1000)
}

// Every request reads a few of the same stamps again (its session's last activity, its room's
// last post), so the last few thousand parsed are kept.
const PARSED_KEPT = 4096
const parsed = new Map<string, number | null>()

// Accepts what Rails and SQLite write: "2026-03-02 16:00:00.123456", with or without fraction or "T"/"Z".
export function parseDbTime(value: string | null | undefined): number | null {
  if (!value) return null
  let ms = parsed.get(value)
  if (ms === undefined) {
    if (parsed.size >= PARSED_KEPT) parsed.clear()
    parsed.set(value, (ms = parseStamp(value)))
  }
  return ms
}

function parseStamp(value: string): number | null {
  const match = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?Z?$/.exec(value)
  if (!match) return null
  const wholeSecondsMs = Date.parse(`${match[1]}T${match[2]}Z`)
  if (Number.isNaN(wholeSecondsMs)) return null
  const micros = (match[3] ?? '').padEnd(6, '0').slice(0, 6)
  return wholeSecondsMs + Number(micros) / 1000
}
