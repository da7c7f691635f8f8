// The benchmark fixtures: `npm run seed:users` and `npm run seed:large`. Each writes a storage
// folder the server opens as it is (see support/fixture.ts for its files), straight into a
// database our migrations created, with progress bars.
//
//   users  5,000 people, 30 rooms with skewed membership ("All Talk" has everyone; the n-th room
//          about 5,000/n^1.3 people, at least 15), 100,000 messages weighted by membership over
//          90 days. The users profile (npm run bench:users) runs on it.
//   large  10,008 people, 2,000,000 messages; "All Talk" has 10,003 members and 60% of the
//          messages, 19 smaller rooms of about 100 members share the rest. For 1-client route
//          latencies (npm run bench:routes -- --fixture tmp/bench/large) and the unread fan-out
//          (npm run bench:fanout).
//
// In both, person 1 ("david", an administrator) is a member of every room, so the harness's
// labels (rooms.watercooler = "All Talk", rooms.hq = "HQ", messages.busy_060, emails.david) make
// bench:routes work on either fixture. Every person has a session, and their signed
// `session_token` cookies are in people.tsv: a load run never signs in.
//
//   npm run seed:users                        → tmp/bench/users
//   npm run seed:large                        → tmp/bench/large
//   npm run seed:users -- --out DIR --force   another folder; --force replaces an existing fixture
//   npm run seed:users -- --people 2000 --messages 20000 --rooms 30 --password secret123456
//
// SECRET_KEY_BASE signs the cookies when set; otherwise the folder's secret_key_base, else a new one.
import BetterSqlite3 from 'better-sqlite3'
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { RailsSigning } from '../../server/lib/rails/signing.ts'
import { dbTime } from '../../server/lib/time.ts'
import {
  createFixtureDatabase, finishFixtureDatabase, fixturePaths, fixtureSecret, insertMessages, personName, Progress, random, sentence, sharedDigest, withoutIndexes, writeSessions, type FixturePaths,
} from './support/fixture.ts'
import { flag, number, path, readOptions, text } from './support/options.ts'

export interface FixtureSpec {
  people: number
  // Member counts, largest first; room 0 is "All Talk", room 1 "HQ".
  roomSizes: number[]
  // Share of the messages per room (normalised).
  messageWeights: number[]
  messages: number
  spanDays: number
  password: string
}

const ROOM_NAMES = [
  'All Talk', 'HQ', 'Design', 'Engineering', 'Support', 'Marketing', 'Sales', 'Ops', 'Releases', 'Incidents',
  'Mobile', 'Web', 'Data', 'Security', 'Hiring', 'Finance', 'Legal', 'Office', 'Travel', 'Books',
  'Music', 'Films', 'Pets', 'Running', 'Cooking', 'Games', 'Garden', 'Photos', 'Climbing', 'Chess',
]

export function usersSpec(people = 5000, rooms = 30, messages = 100_000): FixtureSpec {
  const roomSizes = Array.from({ length: rooms }, (_, i) => (i === 0 ? people : Math.max(15, Math.min(people, Math.round(people / (i + 1) ** 1.3)))))
  return { people, roomSizes, messageWeights: roomSizes, messages, spanDays: 90, password: 'secret123456' }
}

export function largeSpec(messages = 2_000_000): FixtureSpec {
  const roomSizes = [10_003, ...Array.from({ length: 19 }, (_, i) => 60 + ((i * 37) % 80))]
  return { people: 10_008, roomSizes, messageWeights: [0.6 * 19 / 0.4, ...roomSizes.slice(1).map(() => 1)], messages, spanDays: 720, password: 'secret123456' }
}

export interface BuiltFixture {
  paths: FixturePaths
  labels: Record<string, string | number>
  secs: number
}

export function buildFixture(storage: string, spec: FixtureSpec, force: boolean): BuiltFixture {
  const started = performance.now()
  const paths = fixturePaths(storage)
  const secret = fixtureSecret(paths)
  const db = createFixtureDatabase(paths, force)
  const next = random(20260302)
  const now = dbTime()
  db.prepare("INSERT INTO accounts (name, join_code, settings, singleton_guard, created_at, updated_at) VALUES ('Campfire benchmark', 'bench-join-code', ?, 0, ?, ?)")
    .run(JSON.stringify({ restrict_room_creation_to_administrators: false }), now, now)

  const people = createPeople(db, spec, now)
  const members = createRooms(db, spec, next, now)
  const weights = cumulative(spec.messageWeights)
  const stamp = timelineOf(spec)
  const progress = new Progress('messages', spec.messages)
  withoutIndexes(db, ['messages', 'action_text_rich_texts'], () => {
    insertMessages(db, spec.messages, () => {
      const room = pickWeighted(weights, next())
      const list = members[room]!
      return { room: room + 1, creator: list[Math.floor(next() * list.length)]!, text: sentence(next, 4 + Math.floor(next() * 12)) }
    }, stamp, progress)
  })
  progress.finish()
  settle(db)
  writeSessions(db, paths, new RailsSigning(secret), people)
  const labels = labelsOf(db, people)
  finishFixtureDatabase(db)
  writeFileSync(paths.labels, JSON.stringify(labels, null, 2) + '\n')
  return { paths, labels, secs: (performance.now() - started) / 1000 }
}

function timelineOf(spec: FixtureSpec): (i: number) => string {
  const end = Date.now() - 60 * 60_000
  const spanMicros = spec.spanDays * 86_400_000_000
  const step = Math.max(1, Math.floor(spanMicros / spec.messages))
  const start = end * 1000 - step * spec.messages
  return (i) => dbTime(start + i * step)
}

function createPeople(db: BetterSqlite3.Database, spec: FixtureSpec, now: string): { id: number; email: string }[] {
  const digest = sharedDigest(spec.password)
  const insert = db.prepare('INSERT INTO users (id, name, email_address, password_digest, role, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 0, ?, ?)')
  const people: { id: number; email: string }[] = []
  const progress = new Progress('people', spec.people)
  db.transaction(() => {
    for (let id = 1; id <= spec.people; id++) {
      const email = id === 1 ? 'david@37signals.com' : `person${String(id).padStart(5, '0')}@example.test`
      insert.run(id, id === 1 ? 'David Heinemeier Hansson' : personName(id), email, digest, id === 1 ? 1 : 0, now, now)
      people.push({ id, email })
    }
  })()
  progress.finish()
  return people
}

// Room r (id r+1) has roomSizes[r] members: person 1, then a random sample of the others.
function createRooms(db: BetterSqlite3.Database, spec: FixtureSpec, next: () => number, now: string): number[][] {
  const room = db.prepare('INSERT INTO rooms (id, name, type, creator_id, created_at, updated_at) VALUES (?, ?, ?, 1, ?, ?)')
  const membership = db.prepare("INSERT INTO memberships (room_id, user_id, involvement, connections, created_at, updated_at) VALUES (?, ?, ?, 0, ?, ?)")
  const everyone = Array.from({ length: spec.people - 1 }, (_, i) => i + 2)
  const total = spec.roomSizes.reduce((a, b) => a + b, 0)
  const progress = new Progress('memberships', total)
  const members: number[][] = []
  db.transaction(() => {
    spec.roomSizes.forEach((size, r) => {
      const name = ROOM_NAMES[r] ?? `Room ${r + 1}`
      room.run(r + 1, name, r === 0 && size === spec.people ? 'Rooms::Open' : 'Rooms::Closed', now, now)
      // A partial Fisher–Yates shuffle picks size - 1 others.
      for (let i = 0; i < size - 1; i++) {
        const j = i + Math.floor(next() * (everyone.length - i))
        ;[everyone[i], everyone[j]] = [everyone[j]!, everyone[i]!]
      }
      const list = [1, ...everyone.slice(0, size - 1)]
      for (const user of list) membership.run(r + 1, user, next() < 0.2 ? 'everything' : 'mentions', now, now)
      members.push(list)
      progress.tick(size)
    })
  })()
  progress.finish()
  return members
}

function cumulative(weights: number[]): Float64Array {
  const sum = weights.reduce((a, b) => a + b, 0)
  const out = new Float64Array(weights.length)
  let acc = 0
  weights.forEach((w, i) => (out[i] = acc += w / sum))
  return out
}

function pickWeighted(cumulativeWeights: Float64Array, x: number): number {
  let lo = 0
  let hi = cumulativeWeights.length - 1
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (cumulativeWeights[mid]! < x) lo = mid + 1
    else hi = mid
  }
  return lo
}

// Rooms are touched by their newest message; nobody is connected or has unread rooms.
function settle(db: BetterSqlite3.Database): void {
  db.exec('UPDATE rooms SET updated_at = COALESCE((SELECT MAX(created_at) FROM messages WHERE messages.room_id = rooms.id), updated_at)')
}

function labelsOf(db: BetterSqlite3.Database, people: { id: number; email: string }[]): Record<string, string | number> {
  const rooms = db.prepare<[], { id: number; name: string }>('SELECT id, name FROM rooms ORDER BY id').all()
  const count = db.prepare<[number], number>('SELECT COUNT(*) FROM messages WHERE room_id = ?').pluck()
  // The history anchor: a message in the middle of All Talk, as busy_060 sits in the harness seed's busy room.
  const middle = db.prepare<[number, number], number>('SELECT id FROM messages WHERE room_id = ? ORDER BY created_at LIMIT 1 OFFSET ?').pluck()
  const labels: Record<string, string | number> = {
    'rooms.watercooler': 1,
    'rooms.hq': 2,
    'messages.busy_060': middle.get(1, Math.floor(count.get(1)! / 2))!,
    'emails.david': people[0]!.email,
    'users.david': 1,
    'passwords.all': 'secret123456',
  }
  for (const room of rooms) labels[`rooms.${room.name.toLowerCase().replace(/[^a-z0-9]+/g, '_')}`] = room.id
  return labels
}

const COMMON = {
  force: flag('replace an existing fixture in that folder'),
  password: text('P', 'the password of every person', 'secret123456'),
}

const USERS = {
  out: path('DIR', 'the fixture folder', 'tmp/bench/users'),
  people: number('N', 'how many people (person 1 is david@37signals.com, an administrator)', 5000, { integer: true, min: 1 }),
  rooms: number('N', 'how many rooms (room 1 "All Talk" has everyone)', 30, { integer: true, min: 1 }),
  messages: number('N', 'how many messages, over 90 days', 100_000, { integer: true }),
  ...COMMON,
}

const LARGE = {
  out: path('DIR', 'the fixture folder', 'tmp/bench/large'),
  messages: number('N', 'how many messages, over 720 days (60% of them in "All Talk")', 2_000_000, { integer: true }),
  ...COMMON,
}

const NOTES = 'SECRET_KEY_BASE signs the cookies when set; otherwise the folder\'s secret_key_base, else a new one.'

const COMMANDS = {
  users: {
    name: 'seed:users', options: USERS, notes: NOTES,
    summary: `Writes the users-profile fixture (npm run bench:users): people in rooms with skewed membership,
messages weighted by membership, a session and signed cookie per person (people.tsv), labels.json.`,
  },
  large: {
    name: 'seed:large', options: LARGE, notes: NOTES,
    summary: `Writes the large fixture (bench:routes -- --fixture tmp/bench/large, bench:fanout): 10,008 people,
"All Talk" with 10,003 members, 19 rooms of about 100, a session and signed cookie per person.`,
  },
}

function main(): void {
  const [kind, ...argv] = process.argv.slice(2)
  if (kind !== 'users' && kind !== 'large') {
    const help = kind === '--help' || kind === '-h'
    ;(help ? console.log : console.error)('usage: tsx test/load/fixtures.ts users|large [options]   (npm run seed:users / npm run seed:large; add --help for their options)')
    process.exit(help ? 0 : 2)
  }
  let spec: FixtureSpec
  let storage: string
  let force: boolean
  if (kind === 'users') {
    const o = readOptions(COMMANDS.users, argv)
    spec = { ...usersSpec(o.people, o.rooms, o.messages), password: o.password }
    storage = o.out
    force = o.force
  } else {
    const o = readOptions(COMMANDS.large, argv)
    spec = { ...largeSpec(o.messages), password: o.password }
    storage = o.out
    force = o.force
  }
  try {
    const built = buildFixture(storage, spec, force)
    const db = new BetterSqlite3(built.paths.database, { readonly: true })
    const count = (sql: string) => db.prepare(sql).pluck().get() as number
    console.log(`seed:${kind}: ${storage} in ${built.secs.toFixed(1)} s`)
    console.log(`  ${count('SELECT COUNT(*) FROM users')} people, ${count('SELECT COUNT(*) FROM rooms')} rooms, ${count('SELECT COUNT(*) FROM memberships')} memberships, ${count('SELECT COUNT(*) FROM messages')} messages, ${count('SELECT COUNT(*) FROM sessions')} sessions`)
    console.log(`  largest room: ${count('SELECT COUNT(*) FROM memberships WHERE room_id = 1')} members; cookies: ${built.paths.people}; labels: ${built.paths.labels}`)
    console.log(`  serve it: CAMPFIRE_STORAGE_PATH=${storage} DISABLE_SSL=true npm start   (the secret is in ${built.paths.secret})`)
    db.close()
  } catch (error) {
    console.error(`seed:${kind}: ${(error as Error).message}`)
    process.exit(1)
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main()
