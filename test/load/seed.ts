// The development dataset: `npm run seed`. It has the shape of the verification harness's seed
// (harness.md §1.3): the upstream cast, the busy room "All Talk" with busy_001…busy_120, rich text,
// mentions, boosts, unread flags, a deactivated user and Lonely Lou. Everything goes through the
// model functions the app uses, so rich text and search rows are exactly what a post writes; only
// timestamps, flags and bot/deactivation details that have no model function yet are set in SQL.
//
//   npm run seed                          refuses a database that already has an account
//   npm run seed -- --force               deletes the database file and seeds a fresh one
//   npm run seed -- --password <p>        the password of every person (default secret123456)
//   npm run seed -- --harness             the verification harness's dataset instead (harness-seed.ts)
//
// CAMPFIRE_STORAGE_PATH and RAILS_ENV choose the file, as for the server; labels.json (flat keys as
// the harness reads them: "rooms.watercooler", "messages.busy_060", …) is written beside it.
import bcrypt from 'bcrypt'
import BetterSqlite3 from 'better-sqlite3'
import { createHash } from 'node:crypto'
import { existsSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { keepGeneratedSecret, loadConfig } from '../../server/config.ts'
import { RailsSigning } from '../../server/lib/rails/signing.ts'
import { dbTime } from '../../server/lib/time.ts'
import type { Models } from '../../server/models/index.ts'
import type { Involvement } from '../../server/models/membership.ts'
import type { MessageRow } from '../../server/models/message.ts'
import { boostMessage, postMessage, reviseMessage } from '../../server/models/message/posting.ts'
import { mentionAttachmentHtml, plainText, sanitizeBody } from '../../server/models/rich-text/index.ts'
import { ROLES, STATUSES } from '../../server/models/user.ts'
import { Store } from '../../server/models/store.ts'
import { flag, readOptions, text } from './support/options.ts'

export const DEFAULT_PASSWORD = 'secret123456'
export const NOW = Date.UTC(2026, 2, 2, 16, 0, 0)
export const BUSY_START = Date.UTC(2026, 1, 28, 8, 0, 0)
export const BUSY_COUNT = 120
const MINUTE = 60_000

export const BUSY_LINES = [
  'Coffee machine is fixed!',
  'Who moved my stapler?',
  'Lunch is here, come and get it.',
  'The build is green again.',
  'Standup in five minutes.',
  'Has anyone seen the projector remote?',
  'Pushed the new onboarding copy.',
  'Reminder: expense reports are due Friday.',
  'The wifi in the back room is flaky.',
  'Great demo today, everyone!',
] as const

const PEOPLE = {
  david: { name: 'David Heinemeier Hansson', email: 'david@37signals.com', role: ROLES.administrator },
  jason: { name: 'Jason Fried', email: 'jason@37signals.com', role: ROLES.administrator },
  jz: { name: 'Jason Zimdars', email: 'jz@37signals.com', role: ROLES.member },
  kevin: { name: 'Kevin McConnell', email: 'kevin@37signals.com', role: ROLES.member },
  bender: { name: 'Bender Bot', email: null, role: ROLES.bot },
  rita: { name: 'Rita Lopez', email: 'rita@example.com', role: ROLES.member },
  mallory: { name: 'Mallory', email: 'mallory@example.com', role: ROLES.member },
  lou: { name: 'Lonely Lou', email: 'lou@example.com', role: ROLES.member },
} as const

export type PersonLabel = keyof typeof PEOPLE
type Shared = { name: string; kind: 'open' | 'closed'; creator: PersonLabel; members?: readonly PersonLabel[] }
type Direct = { kind: 'direct'; creator: PersonLabel; members: readonly PersonLabel[] }

// Creation order matters: open rooms take in every active person, so Lou (created after them) has no rooms.
const ROOMS = {
  pets: { name: 'All Pets', kind: 'open', creator: 'david' },
  hq: { name: 'HQ', kind: 'open', creator: 'david' },
  watercooler: { name: 'All Talk', kind: 'closed', creator: 'jason', members: ['david', 'jason', 'jz', 'kevin', 'bender'] },
  designers: { name: 'Designers', kind: 'closed', creator: 'jason', members: ['david', 'jason', 'jz', 'kevin', 'rita'] },
  quiet_corner: { name: 'Quiet Corner', kind: 'closed', creator: 'kevin', members: ['kevin', 'david'] },
  archive: { name: 'Archive', kind: 'open', creator: 'jason' },
  // A name that needs escaping, so the sidebar's escaping is exercised.
  qa: { name: "Kevin's Q&A", kind: 'open', creator: 'kevin' },
  david_and_jason: { kind: 'direct', creator: 'david', members: ['jason'] },
  david_and_kevin: { kind: 'direct', creator: 'david', members: ['kevin'] },
  bender_and_kevin: { kind: 'direct', creator: 'kevin', members: ['bender'] },
  group: { kind: 'direct', creator: 'jz', members: ['david', 'jason', 'kevin'] },
} as const satisfies Record<string, Shared | Direct>

export type RoomLabel = keyof typeof ROOMS

// David's bell in each room, as in the harness seed.
const DAVID_INVOLVEMENT: [RoomLabel, Involvement][] = [
  ['designers', 'mentions'], ['pets', 'everything'], ['watercooler', 'everything'], ['hq', 'nothing'], ['archive', 'invisible'], ['david_and_kevin', 'nothing'],
]

interface MessageSpec {
  label: string
  room: RoomLabel
  by: PersonLabel
  at: number
  body: string | ((mention: (who: PersonLabel) => string) => string)
  boosts?: [PersonLabel, string][]
  revised?: string
}

const at = (day: number, hour: number, minute: number) => Date.UTC(2026, 2, day, hour, minute)

// Everything except the busy run and bender's build notice. These are posted first, so their ids are
// lower than the busy messages' although most are newer: id order and time order disagree, as they do
// in the harness seed (whose fixture ids are label hashes).
const MESSAGES: MessageSpec[] = [
  { label: 'pets_fridge', room: 'pets', by: 'david', at: at(1, 9, 5), body: '<p>Our dog learned to open the fridge.</p>' },
  { label: 'pets_grinder', room: 'pets', by: 'jason', at: at(1, 9, 12), body: '<p>Cat tax: she sleeps next to the coffee grinder.</p>', boosts: [['kevin', '😻']] },
  { label: 'pets_emoji', room: 'pets', by: 'kevin', at: at(1, 9, 20), body: '<p>🐶🐱</p>' },
  { label: 'hq_planning', room: 'hq', by: 'david', at: at(1, 10, 0), body: '<p>Quarterly planning doc is up.</p>' },
  { label: 'hq_budget', room: 'hq', by: 'jason', at: at(1, 10, 30), body: '<p>Coffee budget approved for Q2.</p>' },
  { label: 'hq_mention', room: 'hq', by: 'jason', at: at(1, 10, 45), body: (m) => `<p>${m('david')} please sign off on the budget.</p>` },
  { label: 'designers_plain', room: 'designers', by: 'jz', at: at(1, 11, 0), body: '<p>New icon set is in the shared folder.</p>' },
  {
    label: 'designers_long', room: 'designers', by: 'jason', at: at(1, 11, 10),
    body: '<h1>Design review</h1><p>We looked at <em>three</em> directions and picked the <strong>second</strong> one.</p><ol><li>Bolder type</li><li>Fewer colours</li></ol>',
  },
  { label: 'designers_emoji', room: 'designers', by: 'kevin', at: at(1, 11, 20), body: '🎨' },
  { label: 'designers_code', room: 'designers', by: 'jz', at: at(1, 11, 30), body: '<pre>const palette = ["ink", "paper"]</pre>' },
  { label: 'designers_mention', room: 'designers', by: 'david', at: at(1, 11, 40), body: (m) => `<p>Nice work ${m('jz')}, ship it.</p>` },
  { label: 'designers_sound', room: 'designers', by: 'jason', at: at(1, 11, 50), body: '/play tada' },
  { label: 'designers_link', room: 'designers', by: 'kevin', at: at(1, 12, 0), body: '<p>Mood board: https://example.com/boards/spring</p>' },
  { label: 'designers_deactivated', room: 'designers', by: 'rita', at: at(1, 12, 10), body: '<p>Coffee chat moved to Thursday.</p>' },
  { label: 'designers_edited', room: 'designers', by: 'jz', at: at(1, 12, 20), body: '<p>Draft colours are final.</p>', revised: '<p>Draft colours are final (edited).</p>' },
  { label: 'designers_boosted', room: 'designers', by: 'jason', at: at(1, 12, 30), body: '<p>Launch is Tuesday.</p>', boosts: [['david', '🎉'], ['jz', '🚀']] },
  { label: 'quiet_thinking', room: 'quiet_corner', by: 'kevin', at: at(1, 13, 0), body: '<p>Quiet here. Good for thinking.</p>' },
  { label: 'archive_notes', room: 'archive', by: 'jason', at: at(1, 13, 30), body: '<p>Old coffee notes, archived.</p>' },
  { label: 'qa_roaster', room: 'qa', by: 'kevin', at: at(1, 13, 45), body: '<p>Ask me anything about the coffee roaster &lt;3</p>' },
  { label: 'direct_coffee', room: 'david_and_jason', by: 'jason', at: at(1, 14, 0), body: '<p>Can we talk about the coffee order?</p>' },
  { label: 'direct_reply', room: 'david_and_jason', by: 'david', at: at(1, 14, 5), body: '<p>Sure, after lunch.</p>' },
  { label: 'direct_draft', room: 'david_and_kevin', by: 'kevin', at: at(2, 9, 0), body: '<p>Sent you the draft.</p>' },
  { label: 'direct_bender', room: 'bender_and_kevin', by: 'kevin', at: at(2, 9, 30), body: '<p>Bender, order more coffee.</p>' },
  { label: 'group_lunch', room: 'group', by: 'jz', at: at(2, 10, 0), body: '<p>Group lunch Friday?</p>' },
  // The busy room's ten newer messages, between busy_120 and the build notice.
  { label: 'watercooler_morning', room: 'watercooler', by: 'jason', at: at(1, 8, 30), body: "<p>Morning all. Who's in the office today?</p>" },
  { label: 'watercooler_table', room: 'watercooler', by: 'david', at: at(1, 8, 41), body: '<p>I am, <strong>working from the big table</strong>.</p>' },
  { label: 'watercooler_pastries', room: 'watercooler', by: 'kevin', at: at(1, 9, 2), body: '<p>Fresh pastries in the kitchen &amp; coffee is brewing.</p>', boosts: [['david', '☕'], ['jason', '🥐']] },
  { label: 'watercooler_mention', room: 'watercooler', by: 'jz', at: at(1, 9, 40), body: (m) => `<p>Hey ${m('jason')} can you review the new icons?</p>` },
  { label: 'watercooler_lunch', room: 'watercooler', by: 'jason', at: at(1, 11, 15), body: '<p>On it after lunch.</p>' },
  { label: 'watercooler_link', room: 'watercooler', by: 'david', at: at(1, 15, 0), body: '<p>Reading <a href="https://example.com/shape-up">Shape Up</a> again, still holds up.</p>' },
  { label: 'watercooler_code', room: 'watercooler', by: 'kevin', at: at(1, 17, 25), body: '<pre>npm run seed</pre>' },
  { label: 'watercooler_list', room: 'watercooler', by: 'jz', at: at(2, 8, 10), body: '<ul><li>Icons</li><li>Colours</li><li>Type</li></ul>' },
  { label: 'watercooler_party', room: 'watercooler', by: 'jason', at: at(2, 11, 0), body: '<p>Nice work 🎉</p>' },
  { label: 'watercooler_quote', room: 'watercooler', by: 'david', at: at(2, 14, 45), body: '<blockquote>Simplicity is prerequisite for reliability.</blockquote>', boosts: [['jz', '💯']] },
]

const BUSY_AUTHORS: PersonLabel[] = ['david', 'jason', 'david', 'jason', 'bender']

export function busyLabel(n: number): string {
  return `busy_${String(n).padStart(3, '0')}`
}

function busyMessages(): MessageSpec[] {
  return Array.from({ length: BUSY_COUNT }, (_, i) => {
    const number = String(i + 1).padStart(3, '0')
    return { label: busyLabel(i + 1), room: 'watercooler', by: BUSY_AUTHORS[i % 5]!, at: BUSY_START + i * 7 * MINUTE, body: `<p>${number}. ${BUSY_LINES[i % 10]}</p>` }
  })
}

const BUILD_NOTICE: MessageSpec = { label: 'bot_in_watercooler', room: 'watercooler', by: 'bender', at: NOW - 20 * MINUTE, body: 'Build 1043 passed.', boosts: [['kevin', '🚢']] }

// Unread flags as in the harness seed: david on the busy room and two direct rooms, kevin on designers.
const UNREAD: [PersonLabel, RoomLabel][] = [['david', 'watercooler'], ['david', 'david_and_kevin'], ['david', 'group'], ['kevin', 'designers']]

export interface SeedOptions {
  secretKeyBase: string
  password?: string
  // bcrypt cost; the harness seed uses 12, tests use less.
  cost?: number
}

export interface SeedLabels {
  clock: { now: string }
  users: Record<PersonLabel, number>
  rooms: Record<RoomLabel, number>
  messages: Record<string, number>
  emails: Partial<Record<PersonLabel, string>>
  passwords: { all: string }
  bot_keys: { bender: string }
  avatar_tokens: { david: string; jason: string }
  join_codes: { signal: string }
}

// client_message_id: the UUIDv5 (URL namespace) of https://parity.campfire.test/messages/<n>.
const URL_NAMESPACE = Buffer.from('6ba7b8119dad11d180b400c04fd430c8', 'hex')

export function seedClientMessageId(n: number): string {
  const hash = createHash('sha1').update(URL_NAMESPACE).update(`https://parity.campfire.test/messages/${n}`).digest()
  hash[6] = (hash[6]! & 0x0f) | 0x50
  hash[8] = (hash[8]! & 0x3f) | 0x80
  const hex = hash.subarray(0, 16).toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

const stamp = (ms: number): string => dbTime(ms * 1000)

// Writes the whole dataset in one transaction and returns its labels.
export function seedDatabase(store: Store, options: SeedOptions): SeedLabels {
  const password = options.password ?? DEFAULT_PASSWORD
  const digest = bcrypt.hashSync(password, options.cost ?? 12)
  const signing = new RailsSigning(options.secretKeyBase)
  return store.writeNow((models) => {
    if (models.accounts.first()) throw new Error('this database already has an account; seed an empty one')
    models.accounts.create('37signals')
    const users = createPeople(models, digest)
    const rooms = createRooms(models, users)
    for (const [room, involvement] of DAVID_INVOLVEMENT) models.involvements.update(rooms[room], users.david, involvement)
    const messages = postAll(models, signing, users, rooms)
    deactivate(models, users.rita, 'rita-deactivated@example.com')
    models.db.prepare('UPDATE users SET status = ? WHERE id = ?').run(STATUSES.banned, users.mallory)
    models.db.prepare("INSERT INTO bans (user_id, ip_address, created_at, updated_at) VALUES (?, '203.0.113.9', ?, ?)").run(users.mallory, stamp(NOW), stamp(NOW))
    users.lou = createPerson(models, 'lou', digest, Object.keys(PEOPLE).length - 1)
    settleRooms(models, users, rooms)
    const account = models.accounts.first()!
    const emails = Object.fromEntries(Object.entries(PEOPLE).flatMap(([label, p]) => (p.email ? [[label, p.email]] : []))) as SeedLabels['emails']
    emails.rita = 'rita-deactivated@example.com'
    return {
      clock: { now: new Date(NOW).toISOString() },
      users,
      rooms,
      messages,
      emails,
      passwords: { all: password },
      bot_keys: { bender: `${users.bender}-${botToken('bender')}` },
      avatar_tokens: { david: signing.signedId('User', users.david, 'avatar'), jason: signing.signedId('User', users.jason, 'avatar') },
      join_codes: { signal: account.join_code },
    }
  })
}

function botToken(label: string): string {
  return createHash('sha256').update(`campfire seed bot ${label}`).digest('hex').slice(0, 12)
}

function createPerson(models: Models, label: PersonLabel, digest: string, index: number): number {
  const person = PEOPLE[label]
  const id = models.users.create({ name: person.name, emailAddress: person.email ?? `${label}@bots.invalid`, passwordDigest: digest, role: person.role })
  const created = stamp(Date.UTC(2026, 0, 1, index))
  if (person.role === ROLES.bot) {
    models.db.prepare('UPDATE users SET email_address = NULL, password_digest = NULL, bot_token = ? WHERE id = ?').run(botToken(label), id)
  }
  models.db.prepare('UPDATE users SET created_at = ?, updated_at = ? WHERE id = ?').run(created, created, id)
  return id
}

function createPeople(models: Models, digest: string): Record<PersonLabel, number> {
  const ids = {} as Record<PersonLabel, number>
  const labels = (Object.keys(PEOPLE) as PersonLabel[]).filter((label) => label !== 'lou')
  labels.forEach((label, index) => (ids[label] = createPerson(models, label, digest, index)))
  return ids
}

function createRooms(models: Models, users: Record<PersonLabel, number>): Record<RoomLabel, number> {
  const ids = {} as Record<RoomLabel, number>
  Object.entries(ROOMS).forEach(([label, room]: [string, Shared | Direct], index) => {
    const creator = users[room.creator]
    const members = (room.members ?? []).map((member) => users[member])
    const id =
      room.kind === 'open' ? models.openRooms.create(room.name, creator)
      : room.kind === 'closed' ? models.closedRooms.create(room.name, creator, members)
      : models.directRooms.findOrCreateFor(members, creator).id
    const created = stamp(Date.UTC(2026, 0, 5, 9, index))
    models.db.prepare('UPDATE rooms SET created_at = ?, updated_at = ? WHERE id = ?').run(created, created, id)
    ids[label as RoomLabel] = id
  })
  return ids
}

// Posts every message through postMessage, in a fixed order, then gives each its timestamps.
function postAll(models: Models, signing: RailsSigning, users: Record<PersonLabel, number>, rooms: Record<RoomLabel, number>): Record<string, number> {
  const names = new Map(Object.entries(users).map(([label, id]) => [id, PEOPLE[label as PersonLabel].name]))
  const mentionName = (sgid: string): string | null => {
    const found = signing.verifySignedGlobalId(sgid)
    return found?.model === 'User' ? (names.get(Number(found.id)) ?? null) : null
  }
  const mention = (who: PersonLabel) => mentionAttachmentHtml(signing.signedGlobalId('User', users[who]))
  const labels: Record<string, number> = {}
  let sequence = 0
  for (const spec of [...MESSAGES, ...busyMessages(), BUILD_NOTICE]) {
    const body = sanitizeBody(typeof spec.body === 'string' ? spec.body : spec.body(mention))
    const message = postMessage(models, {
      roomId: rooms[spec.room], creatorId: users[spec.by], clientMessageId: seedClientMessageId(++sequence), body, plainText: plainText(body, mentionName),
    })
    labels[spec.label] = message.id
    restamp(models, message, spec, users, mentionName)
  }
  return labels
}

// Edits and boosts happen after the message; the message's updated_at is the last of them.
function restamp(models: Models, message: MessageRow, spec: MessageSpec, users: Record<PersonLabel, number>, mentionName: (sgid: string) => string | null): void {
  let updated = spec.at
  if (spec.revised) {
    const body = sanitizeBody(spec.revised)
    reviseMessage(models, message, body, plainText(body, mentionName))
    updated += 5 * MINUTE
  }
  for (const [booster, content] of spec.boosts ?? []) {
    const boost = boostMessage(models, message, users[booster], content)
    updated += MINUTE
    models.db.prepare('UPDATE boosts SET created_at = ?, updated_at = ? WHERE id = ?').run(stamp(updated), stamp(updated), boost.id)
  }
  models.db.prepare('UPDATE messages SET created_at = ?, updated_at = ? WHERE id = ?').run(stamp(spec.at), stamp(updated), message.id)
  models.db.prepare("UPDATE action_text_rich_texts SET created_at = ?, updated_at = ? WHERE record_type = 'Message' AND record_id = ?").run(stamp(spec.at), stamp(updated), message.id)
}

// Upstream's deactivation: out of every room but direct ones, signed out, email rewritten.
function deactivate(models: Models, userId: number, email: string): void {
  models.db.prepare("DELETE FROM memberships WHERE user_id = ? AND room_id IN (SELECT id FROM rooms WHERE type != 'Rooms::Direct')").run(userId)
  models.db.prepare('DELETE FROM sessions WHERE user_id = ?').run(userId)
  models.db.prepare('UPDATE users SET status = ?, email_address = ? WHERE id = ?').run(STATUSES.deactivated, email, userId)
}

// Rooms end up touched by their newest message, nobody is connected, and only the seeded unread flags remain.
function settleRooms(models: Models, users: Record<PersonLabel, number>, rooms: Record<RoomLabel, number>): void {
  const db = models.db
  db.prepare('UPDATE rooms SET updated_at = MAX(created_at, COALESCE((SELECT MAX(updated_at) FROM messages WHERE messages.room_id = rooms.id), created_at))').run()
  db.prepare('UPDATE memberships SET unread_at = NULL, connected_at = NULL, connections = 0, created_at = (SELECT created_at FROM rooms WHERE rooms.id = memberships.room_id), updated_at = (SELECT created_at FROM rooms WHERE rooms.id = memberships.room_id)').run()
  const newestByOthers = db.prepare<[number, number], string>('SELECT MAX(created_at) FROM messages WHERE room_id = ? AND creator_id != ?').pluck()
  for (const [person, room] of UNREAD) {
    const unreadAt = newestByOthers.get(rooms[room], users[person])
    db.prepare('UPDATE memberships SET unread_at = ?, updated_at = ? WHERE room_id = ? AND user_id = ?').run(unreadAt, unreadAt, rooms[room], users[person])
  }
}

// "rooms.watercooler": 3, "messages.busy_060": 61, …: the flat keys the harness reads.
export function flattenLabels(labels: SeedLabels): Record<string, string | number> {
  const flat: Record<string, string | number> = {}
  for (const [group, values] of Object.entries(labels)) {
    for (const [key, value] of Object.entries(values as Record<string, string | number>)) flat[`${group}.${key}`] = value
  }
  return flat
}

function hasAccount(path: string): boolean {
  if (!existsSync(path)) return false
  const db = new BetterSqlite3(path, { readonly: true, fileMustExist: true })
  try {
    const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'accounts'").get()
    return table !== undefined && db.prepare('SELECT 1 FROM accounts LIMIT 1').get() !== undefined
  } finally {
    db.close()
  }
}

const OPTIONS = {
  force: flag('delete the database file (and its -wal, -shm; with --harness, the files folder too) and seed a fresh one'),
  password: text('P', 'the password of every person (with --harness, VERIFICATION_PASSWORD wins when set)', DEFAULT_PASSWORD),
  harness: flag('seed the verification harness\'s dataset: label-hash fixture ids, every presentation type with real files, bcrypt cost 12'),
}

const COMMAND = {
  name: 'seed',
  summary: `Fills an empty database with the development dataset (the upstream cast, the busy room
"All Talk" with busy_001…busy_120, mentions, boosts, unread rooms) and writes labels.json beside
it. It refuses a database that already has an account, unless --force. With --harness it seeds the
verification harness's dataset instead (test/load/harness-seed.ts), files included.`,
  options: OPTIONS,
  notes: `CAMPFIRE_STORAGE_PATH (default storage) and RAILS_ENV choose the database file, as for the server.
With --harness the files go to <storage>/files, VERIFICATION_PASSWORD is everyone's password (else
--password), and VERIFICATION_BENDER_TOKEN, VERIFICATION_DEPLOY_TOKEN and VERIFICATION_OLD_TOKEN are
the bots' tokens (each generated when unset). It needs ffmpeg and ffprobe for its video.`,
}

async function main(): Promise<void> {
  const options = readOptions(COMMAND)
  const config = loadConfig()
  keepGeneratedSecret(config)
  const path = config.databasePath
  if (hasAccount(path) && !options.force) {
    console.error(`${path} already has an account; not touching it. Run \`npm run seed -- --force\` to delete it and seed a fresh one.`)
    process.exit(1)
  }
  if (options.force) for (const file of [path, `${path}-wal`, `${path}-shm`]) rmSync(file, { force: true })
  // The harness dataset's blobs would be orphans of the deleted database.
  if (options.force && options.harness) rmSync(config.filesPath, { recursive: true, force: true })
  const store = new Store({ path, migrationsDir: fileURLToPath(new URL('../../migrations', import.meta.url)), synchronous: config.synchronous })
  try {
    // Loaded only when asked for: it brings sharp and ffmpeg along.
    if (options.harness) return await (await import('./harness-seed.ts')).seedHarnessCommand(store, config, process.env.VERIFICATION_PASSWORD || options.password)
    const started = performance.now()
    const labels = seedDatabase(store, { secretKeyBase: config.secretKeyBase, password: options.password })
    const labelsPath = join(dirname(path), 'labels.json')
    writeFileSync(labelsPath, JSON.stringify(flattenLabels(labels), null, 2) + '\n')
    const count = (sql: string) => store.writeDb.prepare(sql).pluck().get() as number
    console.log(`Seeded ${path} in ${Math.round(performance.now() - started)} ms`)
    console.log(`  ${count('SELECT COUNT(*) FROM users')} people, ${count('SELECT COUNT(*) FROM rooms')} rooms, ${count('SELECT COUNT(*) FROM messages')} messages, ${count('SELECT COUNT(*) FROM boosts')} boosts`)
    console.log(`  busy room "All Talk" = ${labels.rooms.watercooler} (busy_001 = ${labels.messages.busy_001}, busy_060 = ${labels.messages.busy_060}, busy_120 = ${labels.messages.busy_120}); write room "HQ" = ${labels.rooms.hq}`)
    console.log(`  labels: ${labelsPath}`)
    if (config.secretKeyBaseSource !== 'env') console.log('  mentions are signed with the storage secret_key_base: start the server with the same storage (or SECRET_KEY_BASE)')
    console.log(`  sign in as ${labels.emails.david} (or jason, jz, kevin @37signals.com) with password: ${labels.passwords.all}`)
  } finally {
    store.close()
  }
}

// Not awaited at the top level: harness-seed.ts imports this module back.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((error: unknown) => {
    console.error(error)
    process.exit(1)
  })
}
