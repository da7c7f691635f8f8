import { execFileSync } from 'node:child_process'
import type BetterSqlite3 from 'better-sqlite3'
import { findProgram } from '../../server/build/debian-package.ts'
import { SQLITE3_PATH } from '../../server/build/sqlite3.ts'

// The benchmark harness's reader of a live database: the host's sqlite3 command, read-only, with a
// 10 s busy timeout, one process per query, from outside the server (harness.md §2.3). As root it
// runs as `nobody`, as the harness's own user differs from the container's, so only what
// `chmod -R a+rwX` on db/ lets another user open can be read.
//
// It answers the part of better-sqlite3's API the harness validator's audit uses
// (prepare(sql).pluck().get(...), .all(...), pragma(name)), so that audit runs through it unchanged.
export class Sqlite3Reader {
  private readonly prefix: string[]

  constructor(readonly path: string) {
    const program = findProgram(SQLITE3_PATH)
    if (!program) throw new Error(`${SQLITE3_PATH} is missing: install Debian's sqlite3 (apt-get install -y sqlite3), as npm test's pretest does where it can`)
    const setpriv = findProgram('setpriv')
    const root = typeof process.getuid === 'function' && process.getuid() === 0
    this.prefix = root && setpriv ? [setpriv, '--reuid=65534', '--regid=65534', '--clear-groups', program] : [program]
  }

  // The rows of one statement, `?` bound in order (numbers as they are, text quoted).
  rows(sql: string, ...params: unknown[]): Record<string, unknown>[] {
    const output = execFileSync(this.prefix[0]!, [...this.prefix.slice(1), '-readonly', '-json', '-init', '/dev/null', '-cmd', '.timeout 10000', this.path], {
      input: `${bind(sql, params)};\n`,
      encoding: 'utf8',
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: 30_000,
    })
    return output.trim() === '' ? [] : (JSON.parse(output) as Record<string, unknown>[])
  }

  prepare(sql: string) {
    const reader = this
    const statement = {
      all: (...params: unknown[]) => reader.rows(sql, ...params),
      get: (...params: unknown[]) => reader.rows(sql, ...params)[0],
      pluck: () => ({
        all: (...params: unknown[]) => reader.rows(sql, ...params).map((row) => Object.values(row)[0]),
        get: (...params: unknown[]) => {
          const first = reader.rows(sql, ...params)[0]
          return first === undefined ? undefined : Object.values(first)[0]
        },
      }),
    }
    return statement
  }

  pragma(name: string): Record<string, unknown>[] {
    return this.rows(`PRAGMA ${name}`)
  }

  // For the validator's functions, which name better-sqlite3's type.
  asDatabase(): BetterSqlite3.Database {
    return this as unknown as BetterSqlite3.Database
  }
}

function bind(sql: string, params: readonly unknown[]): string {
  let next = 0
  const bound = sql.replace(/\?/g, () => {
    if (next >= params.length) throw new Error(`more placeholders than parameters in: ${sql}`)
    return literal(params[next++])
  })
  if (next !== params.length) throw new Error(`more parameters than placeholders in: ${sql}`)
  return bound
}

function literal(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'bigint') {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new Error(`cannot bind ${value}`)
    return String(value)
  }
  if (typeof value === 'string') return `'${value.replaceAll("'", "''")}'`
  if (value === null) return 'NULL'
  throw new Error(`cannot bind a ${typeof value}`)
}
