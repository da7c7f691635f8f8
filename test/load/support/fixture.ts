// What the benchmark fixtures (seed-users.ts, seed-large.ts) share: a storage folder whose
// database our migrations created, then filled in bulk on one writer connection (journal off,
// big transactions, prepared statements, secondary indexes rebuilt once at the end), pre-minted
// sessions with their signed `session_token` cookies, and a progress bar.
//
// A fixture is a storage folder the server opens as it is (CAMPFIRE_STORAGE_PATH):
//   db/production.sqlite3   the database (Rails' schema plus our additive migrations)
//   secret_key_base         the secret the cookies, mentions and stream names are signed with
//   people.tsv              user_id <TAB> email <TAB> cookie ("session_token=…"), one line per person
//   labels.json             ids by name, as the harness's labels.json ("rooms.watercooler", …)
import bcrypt from 'bcrypt'
import BetterSqlite3 from 'better-sqlite3'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { RailsSigning } from '../../../server/lib/rails/signing.ts'
import { dbTime } from '../../../server/lib/time.ts'
import { Store } from '../../../server/models/store.ts'

export const ROOT = fileURLToPath(new URL('../../..', import.meta.url))
export const SESSION_COOKIE = 'session_token'

export interface FixturePaths {
  storage: string
  database: string
  secret: string
  people: string
  labels: string
}

export function fixturePaths(storage: string): FixturePaths {
  return {
    storage,
    database: join(storage, 'db', 'production.sqlite3'),
    secret: join(storage, 'secret_key_base'),
    people: join(storage, 'people.tsv'),
    labels: join(storage, 'labels.json'),
  }
}

// Creates the folder and an empty database with our schema; refuses to replace one unless forced.
export function createFixtureDatabase(paths: FixturePaths, force: boolean): BetterSqlite3.Database {
  if (existsSync(paths.database) && !force) throw new Error(`${paths.database} exists; pass --force to replace it`)
  for (const file of [paths.database, `${paths.database}-wal`, `${paths.database}-shm`, paths.people, paths.labels]) rmSync(file, { force: true })
  mkdirSync(join(paths.storage, 'db'), { recursive: true })
  new Store({ path: paths.database, migrationsDir: join(ROOT, 'migrations') }).close()
  const db = new BetterSqlite3(paths.database)
  db.pragma('journal_mode = OFF')
  db.pragma('synchronous = OFF')
  db.pragma('locking_mode = EXCLUSIVE')
  db.pragma('temp_store = MEMORY')
  db.pragma('cache_size = -524288') // 512 MB
  return db
}

// Back to what the server expects: WAL, statistics for the planner, nothing left open.
export function finishFixtureDatabase(db: BetterSqlite3.Database): void {
  db.pragma('locking_mode = NORMAL')
  db.pragma('journal_mode = WAL')
  db.exec('ANALYZE')
  db.close()
}

// The secret comes from SECRET_KEY_BASE, else the one the folder already holds, else a new one.
export function fixtureSecret(paths: FixturePaths): string {
  const fromEnv = process.env.SECRET_KEY_BASE?.trim()
  const secret = fromEnv || (existsSync(paths.secret) ? readFileSync(paths.secret, 'utf8').trim() : randomBytes(64).toString('hex'))
  if (secret.length < 32) throw new Error('SECRET_KEY_BASE must be at least 32 characters')
  mkdirSync(paths.storage, { recursive: true })
  writeFileSync(paths.secret, secret + '\n', { mode: 0o600 })
  return secret
}

// Secondary indexes of these tables are dropped while rows go in, and rebuilt once afterwards.
export function withoutIndexes<T>(db: BetterSqlite3.Database, tables: string[], fill: () => T): T {
  const list = tables.map((t) => `'${t}'`).join(', ')
  const indexes = db.prepare<[], { name: string; sql: string }>(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN (${list})`).all()
  const unique = indexes.filter((index) => /^CREATE UNIQUE/i.test(index.sql))
  for (const index of indexes) if (!unique.includes(index)) db.exec(`DROP INDEX "${index.name}"`)
  const result = fill()
  for (const index of indexes) if (!unique.includes(index)) db.exec(index.sql)
  return result
}

// The harness's pre-minted session shape: 19 "a" and the zero-padded user id.
export function sessionToken(userId: number): string {
  return 'a'.repeat(19) + String(userId).padStart(5, '0')
}

export function sessionCookie(signing: RailsSigning, token: string): string {
  return `${SESSION_COOKIE}=${encodeURIComponent(signing.signCookie(SESSION_COOKIE, token))}`
}

export interface PersonRow {
  id: number
  email: string
}

// One session row per person and the cookie file beside the database.
export function writeSessions(db: BetterSqlite3.Database, paths: FixturePaths, signing: RailsSigning, people: PersonRow[]): void {
  const now = dbTime()
  const insert = db.prepare("INSERT INTO sessions (user_id, token, ip_address, user_agent, last_active_at, created_at, updated_at) VALUES (?, ?, '127.0.0.1', 'campfire-ts benchmark', ?, ?, ?)")
  const lines: string[] = []
  db.transaction(() => {
    for (const person of people) {
      const token = sessionToken(person.id)
      insert.run(person.id, token, now, now, now)
      lines.push(`${person.id}\t${person.email}\t${sessionCookie(signing, token)}`)
    }
  })()
  writeFileSync(paths.people, lines.join('\n') + '\n')
}

export function readPeople(file: string): { id: number; email: string; cookie: string }[] {
  return readFileSync(file, 'utf8').split('\n').filter((line) => line.trim() !== '').map((line) => {
    const [id, email, cookie] = line.split('\t')
    return { id: Number(id), email: email!, cookie: cookie! }
  })
}

export function sharedDigest(password: string): string {
  return bcrypt.hashSync(password, 10)
}

// A small deterministic generator (mulberry32), so a seed is the same every time.
export function random(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export const VOCABULARY = (
  'coffee build deploy release review design meeting lunch standup customer support invoice budget launch ' +
  'bug fix test server database cache search sidebar message room people team project roadmap sprint ' +
  'question answer idea draft copy icon colour type font layout mobile desktop browser socket latency ' +
  'morning afternoon evening weekend holiday travel office remote kitchen pastries pizza tea water plant ' +
  'printer projector wifi network laptop monitor keyboard mouse chair desk window door meeting calendar ' +
  'friday monday tuesday wednesday thursday today tomorrow yesterday week month quarter year plan goal ' +
  'metric chart report dashboard alert incident outage backup restore migration schema index query ' +
  'green red blue yellow bright quiet busy happy tired ready done shipped merged pushed pulled tagged'
).split(' ')

// A sentence of `words` vocabulary words, capitalised and ended, and its plain text.
export function sentence(next: () => number, words: number): string {
  const picked: string[] = []
  for (let i = 0; i < words; i++) picked.push(VOCABULARY[Math.floor(next() * VOCABULARY.length)]!)
  picked[0] = picked[0]![0]!.toUpperCase() + picked[0]!.slice(1)
  return picked.join(' ') + '.'
}

const FIRST = 'Ada Ben Cleo Dan Eve Finn Gus Hana Ivo Jade Kai Lena Milo Nora Otto Pia Quin Rosa Sam Tess Uma Vic Wren Xena Yuri Zoe'.split(' ')
const LAST = 'Adams Brooks Chen Diaz Evans Fischer Garcia Haddad Ito Jensen Kim Lopez Moreau Novak Okafor Patel Quist Rossi Silva Tanaka Ueda Varga Weber Xu Young Zhou'.split(' ')

export function personName(n: number): string {
  return `${FIRST[n % FIRST.length]} ${LAST[Math.floor(n / FIRST.length) % LAST.length]} ${n}`
}

// Writes messages (row, rich-text body, search row) for a list of (room, creator) pairs in time
// order, in transactions of `batch`. The body is a plain paragraph, as a post of plain text stores it.
export function insertMessages(
  db: BetterSqlite3.Database,
  count: number,
  pick: (i: number) => { room: number; creator: number; text: string },
  at: (i: number) => string,
  progress: Progress,
  batch = 50_000,
): void {
  const message = db.prepare('INSERT INTO messages (id, room_id, creator_id, client_message_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)')
  const body = db.prepare("INSERT INTO action_text_rich_texts (name, body, record_type, record_id, created_at, updated_at) VALUES ('body', ?, 'Message', ?, ?, ?)")
  const search = db.prepare('INSERT INTO message_search_index (rowid, body) VALUES (?, ?)')
  const first = (db.prepare('SELECT COALESCE(MAX(id), 0) FROM messages').pluck().get() as number) + 1
  const run = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const { room, creator, text } = pick(i)
      const id = first + i
      const stamp = at(i)
      message.run(id, room, creator, `seed-${id.toString(16).padStart(8, '0')}-${randomBytes(4).toString('hex')}`, stamp, stamp)
      body.run(`<p>${text}</p>`, id, stamp, stamp)
      search.run(id, text)
    }
  })
  for (let from = 0; from < count; from += batch) {
    const to = Math.min(count, from + batch)
    run(from, to)
    progress.tick(to - from)
  }
}

// A progress bar on stderr: redrawn in place on a terminal, a line every 10% otherwise.
export class Progress {
  private done = 0
  private readonly started = performance.now()
  private lastDecile = -1

  constructor(
    private readonly label: string,
    private readonly total: number,
  ) {
    this.draw()
  }

  tick(n = 1): void {
    this.done += n
    this.draw()
  }

  finish(): number {
    this.done = this.total
    this.draw()
    if (process.stderr.isTTY) process.stderr.write('\n')
    return (performance.now() - this.started) / 1000
  }

  private draw(): void {
    const share = this.total === 0 ? 1 : Math.min(1, this.done / this.total)
    const secs = (performance.now() - this.started) / 1000
    const rate = secs > 0 ? Math.round(this.done / secs) : 0
    const eta = share > 0 && share < 1 ? ` eta ${Math.round((secs / share) * (1 - share))} s` : ''
    const text = `${this.label.padEnd(22)} ${this.done.toLocaleString('en-US')}/${this.total.toLocaleString('en-US')} ${Math.round(share * 100)}% ${rate.toLocaleString('en-US')}/s ${secs.toFixed(1)} s${eta}`
    if (process.stderr.isTTY) {
      const width = 24
      const filled = Math.round(share * width)
      process.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${text}\x1b[K`)
    } else {
      const decile = Math.floor(share * 10)
      if (decile !== this.lastDecile) {
        this.lastDecile = decile
        process.stderr.write(`${text}\n`)
      }
    }
  }
}
