import { hostname } from 'node:os'
import type { LogLevel } from '../config.ts'
import { lineFormatter, type LogFormat } from '../lib/log-format.ts'

const LEVELS: Record<LogLevel, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity }

export interface PrimaryLog {
  debug(details: object, message: string): void
  info(details: object, message: string): void
  warn(details: object, message: string): void
  error(details: object, message: string): void
}

// The primary has no Fastify of its own; its lines have the shape of the workers' (pino's
// JSON, or the same readable lines), on the same stdout, so one log reads as one.
export function primaryLog(level: LogLevel, format: LogFormat = 'json'): PrimaryLog {
  const threshold = LEVELS[level]
  const formatted = lineFormatter(format)
  const base = { pid: process.pid, hostname: hostname(), primary: true }
  const line = (value: number) => (details: object, message: string) => {
    if (value < threshold) return
    process.stdout.write(formatted(JSON.stringify({ level: value, time: Date.now(), ...base, ...details, msg: message }) + '\n'))
  }
  return { debug: line(LEVELS.debug), info: line(LEVELS.info), warn: line(LEVELS.warn), error: line(LEVELS.error) }
}
