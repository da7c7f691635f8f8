import type PinoPretty from 'pino-pretty'
import { lazyPackage } from './lazy-package.ts'

// Loaded only for readable lines (a terminal, or LOG_FORMAT=pretty).
const pinoPretty = lazyPackage<typeof PinoPretty>('pino-pretty')

// How log lines are written (LOG_FORMAT): pino's JSON, one object a line, for containers, CI and
// log collectors; or readable lines (time, level, message, a few fields) for a person at a
// terminal. Unset, a terminal gets readable lines and anything else JSON.
export type LogFormat = 'json' | 'pretty'

export const LOG_FORMATS: readonly LogFormat[] = ['json', 'pretty']

export function defaultLogFormat(isTTY: boolean): LogFormat {
  return isTTY ? 'pretty' : 'json'
}

const PRETTY_OPTIONS = {
  translateTime: 'SYS:HH:MM:ss.l',
  ignore: 'pid,hostname',
  singleLine: true,
}

// The stream Fastify's pino writes to: none (pino's own stdout) for JSON; for readable lines,
// pino-pretty formatting on this thread and writing synchronously, so a line is out before an
// exit, as pino's own stdout writes are.
export function logStream(format: LogFormat): NodeJS.WritableStream | undefined {
  if (format === 'json') return undefined
  return pinoPretty()({ ...PRETTY_OPTIONS, sync: true, destination: 1 })
}

// Formats one of pino's JSON lines as logStream's readable lines, for the processes that write
// pino-shaped lines of their own (a cluster's primary).
export function lineFormatter(format: LogFormat): (line: string) => string {
  if (format === 'json') return (line) => line
  const prettify = pinoPretty().prettyFactory(PRETTY_OPTIONS)
  return (line) => prettify(line)
}
