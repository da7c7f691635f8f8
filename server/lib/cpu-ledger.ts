// Where the server's CPU goes, by part: the budget per navigation that `npm run bench:users`
// reports (docs/scaling.md). Off unless CAMPFIRE_CPU_LEDGER=1; off, every call is one test of a
// constant.
//
// The process's CPU time (process.cpuUsage: user + system, every thread) is charged to the
// account that is current when it is spent. Code that does one part of the work makes its
// account current and puts the previous one back when it is done (`const was = enter(A)` …
// `enter(was)`); whatever nobody claimed stays with the account that was current, so an account
// that is never put back (the end of an HTTP request) hands over to REST. The figures are
// measured, not estimated: the accounts always add up to the process's CPU over the lap.
//
// The bench's loop probe (test/load/support/loop-probe.mjs) reads the ledger through a global
// symbol, so the product never imports anything of the bench.

import { PerformanceObserver } from 'node:perf_hooks'
import { parseBoolean } from './boolean-setting.ts'

export class Account {
  us = 0
  count = 0
  constructor(readonly name: string) {}
}

// The configuration has refused a value that is not a boolean before the app is loaded.
export const LEDGER_ENABLED = parseBoolean(process.env.CAMPFIRE_CPU_LEDGER) === true

const accounts = new Map<string, Account>()
export const REST = account('rest')
// Compression on the main thread (zlib's synchronous calls), whoever asks for it.
export const COMPRESSION = account('compression')
let current = REST
let last = LEDGER_ENABLED ? clock() : 0

function clock(): number {
  const usage = process.cpuUsage()
  return usage.user + usage.system
}

// The named account, made on first use.
export function account(name: string): Account {
  let found = accounts.get(name)
  if (!found) accounts.set(name, (found = new Account(name)))
  return found
}

// Makes `next` current (charging what was spent since the last switch to the account it
// replaces) and returns the account it replaced.
export function enter(next: Account): Account {
  if (!LEDGER_ENABLED) return next
  const now = clock()
  current.us += now - last
  last = now
  const was = current
  current = next
  return was
}

// Counts one event of an account (a subscribe, a broadcast) without charging anything.
export function tally(of: Account, n = 1): void {
  if (LEDGER_ENABLED) of.count += n
}

// Moves what a private account (one request's) collected into a named one, once per event.
export function settleInto(from: Account, into: Account): void {
  if (!LEDGER_ENABLED) return
  into.us += from.us
  into.count++
  from.us = 0
}

// Garbage collection pauses the main thread inside whichever part allocated: its time is
// counted apart (PerformanceObserver's gc entries), already included in the accounts.
let gcMs = 0
let gcs = 0
if (LEDGER_ENABLED) {
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gcMs += entry.duration
      gcs++
    }
  }).observe({ entryTypes: ['gc'] })
}

// The figures since the previous lap (ms of CPU and event counts per account), then zeroed;
// `gc` is the pauses' wall time, spread over the accounts.
export function lap(): Record<string, { ms: number; count: number }> {
  enter(current)
  const figures: Record<string, { ms: number; count: number }> = { gc: { ms: Math.round(gcMs * 1000) / 1000, count: gcs } }
  gcMs = 0
  gcs = 0
  for (const [name, acc] of accounts) {
    if (acc.us === 0 && acc.count === 0) continue
    figures[name] = { ms: Math.round(acc.us) / 1000, count: acc.count }
    acc.us = 0
    acc.count = 0
  }
  return figures
}

if (LEDGER_ENABLED) (globalThis as Record<symbol, unknown>)[Symbol.for('campfire.cpu-ledger')] = { lap }
