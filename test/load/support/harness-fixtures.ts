// The upstream test fixtures (once-campfire's test/fixtures/*.yml) as the verification harness's
// seed holds them. Rails' fixture loader writes rows straight into the tables, without model
// callbacks, and gives each row the hash of its label as its id (ActiveRecord::FixtureSet.identify):
// large numbers that say nothing about order. The harness seed then spreads their timestamps out
// in fixture file order, indexes the fixture messages for search and hands Bender its token.
// This writes that end state in one go.
import { crc32 } from 'node:zlib'
import type { Connection } from '../../../server/models/database.ts'
import { plainText } from '../../../server/models/rich-text/index.ts'
import { ROLES } from '../../../server/models/user.ts'

// ActiveRecord::FixtureSet::MAX_ID
export const MAX_FIXTURE_ID = 2 ** 30 - 1

// ActiveRecord::FixtureSet.identify(label): Zlib.crc32(label) % MAX_ID.
export function identify(label: string): number {
  return crc32(label) % MAX_FIXTURE_ID
}

const DAY = 24 * 60 * 60 * 1000
const HOUR = 60 * 60 * 1000
const MINUTE = 60 * 1000

export const FIXTURE_USERS = {
  david: { name: 'David', email: 'david@37signals.com', role: ROLES.administrator, bio: null },
  jason: { name: 'Jason', email: 'jason@37signals.com', role: ROLES.administrator, bio: null },
  jz: { name: 'JZ', email: 'jz@37signals.com', role: ROLES.member, bio: 'Designer' },
  kevin: { name: 'Kevin', email: 'kevin@37signals.com', role: ROLES.member, bio: 'Programmer' },
  bender: { name: 'Bender Bot', email: null, role: ROLES.bot, bio: null },
} as const

export type FixtureUser = keyof typeof FIXTURE_USERS

export const FIXTURE_ROOMS = {
  pets: { name: 'All Pets', type: 'Rooms::Open', creator: 'david' },
  hq: { name: 'HQ', type: 'Rooms::Open', creator: 'david' },
  watercooler: { name: 'All Talk', type: 'Rooms::Closed', creator: 'david' },
  designers: { name: 'Designers', type: 'Rooms::Closed', creator: 'david' },
  david_and_jason: { name: null, type: 'Rooms::Direct', creator: 'david' },
  david_and_kevin: { name: null, type: 'Rooms::Direct', creator: 'david' },
  bender_and_kevin: { name: null, type: 'Rooms::Direct', creator: 'kevin' },
} as const satisfies Record<string, { name: string | null; type: string; creator: FixtureUser }>

export type FixtureRoom = keyof typeof FIXTURE_ROOMS

// [room, user, involvement]; a membership without one takes the column's default, 'mentions'.
const MEMBERSHIPS: [FixtureRoom, FixtureUser, string?][] = [
  ['designers', 'david'], ['designers', 'jason', 'everything'], ['designers', 'jz', 'everything'], ['designers', 'kevin'],
  ['pets', 'david', 'everything'], ['pets', 'jason', 'everything'],
  ['watercooler', 'david', 'everything'], ['watercooler', 'jason', 'everything'], ['watercooler', 'bender'],
  ['hq', 'david', 'everything'], ['hq', 'jason', 'everything'], ['hq', 'jz', 'everything'], ['hq', 'kevin', 'everything'],
  ['david_and_jason', 'david', 'everything'], ['david_and_jason', 'jason', 'everything'],
  ['david_and_kevin', 'david', 'everything'], ['david_and_kevin', 'kevin', 'everything'],
  ['bender_and_kevin', 'bender', 'everything'], ['bender_and_kevin', 'kevin', 'everything'],
]

// [label, room, creator, minutes before the seed's clock]; client_message_id "0001"… in this order.
// Their bodies are the rich-text fixtures: plain text, no markup at all.
const MESSAGES: [string, FixtureRoom, FixtureUser, number, string][] = [
  ['first', 'designers', 'jason', 60, 'First post!'],
  ['second', 'designers', 'david', 36, 'Seconded.'],
  ['third', 'designers', 'jz', 7, "Third time's a charm."],
  ['fourth', 'watercooler', 'jz', 30, 'You know what the fellow said – in Italy, for thirty years under the Borgias, they had warfare, terror, murder and bloodshed, but they produced Michelangelo, Leonardo da Vinci and the Renaissance. In Switzerland, they had brotherly love, they had five hundred years of democracy and peace – and what did that produce? The cuckoo clock.'],
  ['fifth', 'watercooler', 'jason', 29, 'Champagne, if you are seeking the truth, is better than a lie detector.'],
  ['sixth', 'watercooler', 'david', 27, 'The sense of unhappiness is so much easier to convey than that of happiness. In misery we seem aware of our own existence, even though it may be in the form of a monstrous egotism—this pain of mine is individual, this nerve that winces belongs to me and to no other. But happiness annihilates us—we lose our identity.'],
  ['seventh', 'watercooler', 'jason', 26, 'A story has no beginning or end—arbitrarily one chooses that moment of experience from which to look back or from which to look ahead.'],
  ['eighth', 'watercooler', 'jz', 25, 'Hate is a lack of imagination.'],
  ['ninth', 'watercooler', 'jz', 24, 'And innocence is a kind of insanity'],
  ['tenth', 'watercooler', 'david', 23, "I don't care a damn about men who are loyal to the people who pay them, to organizations...I don't think even my country means all that much. There are many countries in our blood, aren't there, but only one person. Would the world be in the mess it is if we were loyal to love and not to countries?"],
  ['eleventh', 'watercooler', 'jason', 22, 'People who like quotes love meaningless generalizations'],
  ['twelfth', 'watercooler', 'jason', 21, "Pain is easy to write. In pain we're all happily individual. But what can one write about happiness?"],
  ['thirteenth', 'watercooler', 'jz', 5, 'When we are not sure, we are alive.'],
]

const BOOSTS: [string, string, FixtureUser, string][] = [
  ['first', 'first', 'david', 'Hello'],
  ['thirteenth', 'thirteenth', 'jason', '💯'],
  ['fourth_by_bender', 'fourth', 'bender', '👀'],
]

const CHROME = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/113.0.0.0 Safari/537.36'
const KEY_TAIL = 'RIXcMgkdjhRnFZaYjjGvo00dydRQbCpQTuXFjLaCPSE7ofxi19awgGc3Doqa1RmYQqsbQDfQTifFZgc'
const PUSH_SUBSCRIPTIONS: [string, FixtureUser, string, string][] = [
  ['david_chrome', 'david', 'https://fcm.googleapis.com/fcm/send/123', `123-${KEY_TAIL}`],
  ['jason_chrome', 'jason', 'https://fcm.googleapis.com/fcm/send/567', `456-${KEY_TAIL}`],
  ['jz_chrome', 'jz', 'https://fcm.googleapis.com/fcm/send/456', `456-${KEY_TAIL}`],
  ['kevin_chrome', 'kevin', 'https://fcm.googleapis.com/fcm/send/789', `456-${KEY_TAIL}`],
]

const SAFARI = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/537.36 (KHTML, like Gecko) HEY/1.0.4 Chrome/83.0.4103.100 Electron/9.0.3 Safari/537.36'

export const FIXTURE_JOIN_CODE = 'CRMu-l8Ge-KB9B'

export interface FixtureOptions {
  now: number
  stamp: (ms: number) => string
  // The one bcrypt digest every person with a password has.
  digest: string
  benderToken: string
}

export interface FixtureIds {
  // "users.david" → id, for every fixture of every table.
  labels: Record<string, number>
  users: Record<FixtureUser, number>
  rooms: Record<FixtureRoom, number>
  messages: Record<string, number>
}

// Every fixture row, with its final timestamps, and the fixture messages' search rows.
export function insertFixtures(db: Connection, options: FixtureOptions): FixtureIds {
  const { now, stamp } = options
  const labels: Record<string, number> = {}
  const id = (table: string, label: string) => (labels[`${table}.${label}`] = identify(label))
  // spread_fixture_timestamps: row i of a table at from + i × step.
  const spread = (from: number, step: number) => (index: number) => stamp(now - from + index * step)

  const account = id('accounts', 'signal')
  const accountAt = stamp(now - 60 * DAY)
  db.prepare('INSERT INTO accounts (id, name, join_code, singleton_guard, created_at, updated_at) VALUES (?, ?, ?, 0, ?, ?)').run(account, '37signals', FIXTURE_JOIN_CODE, accountAt, accountAt)

  const users = {} as Record<FixtureUser, number>
  const userAt = spread(59 * DAY, HOUR)
  const insertUser = db.prepare('INSERT INTO users (id, name, email_address, password_digest, role, bio, bot_token, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
  Object.entries(FIXTURE_USERS).forEach(([label, user], index) => {
    const bot = user.role === ROLES.bot
    insertUser.run(users[label as FixtureUser] = id('users', label), user.name, user.email, bot ? null : options.digest, user.role, user.bio, bot ? options.benderToken : null, userAt(index), userAt(index))
  })

  const rooms = {} as Record<FixtureRoom, number>
  const roomAt = spread(58 * DAY, HOUR)
  const insertRoom = db.prepare('INSERT INTO rooms (id, name, type, creator_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)')
  Object.entries(FIXTURE_ROOMS).forEach(([label, room], index) => {
    insertRoom.run(rooms[label as FixtureRoom] = id('rooms', label), room.name, room.type, users[room.creator], roomAt(index), roomAt(index))
  })

  const membershipAt = spread(57 * DAY, MINUTE)
  const insertMembership = db.prepare("INSERT INTO memberships (id, room_id, user_id, involvement, connections, created_at, updated_at) VALUES (?, ?, ?, COALESCE(?, 'mentions'), 0, ?, ?)")
  MEMBERSHIPS.forEach(([room, user, involvement], index) => {
    insertMembership.run(id('memberships', `${user}_${room}`), rooms[room], users[user], involvement ?? null, membershipAt(index), membershipAt(index))
  })

  const messages: Record<string, number> = {}
  const insertMessage = db.prepare('INSERT INTO messages (id, room_id, creator_id, client_message_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)')
  const insertBody = db.prepare("INSERT INTO action_text_rich_texts (id, name, body, record_type, record_id, created_at, updated_at) VALUES (?, 'body', ?, 'Message', ?, ?, ?)")
  const insertSearch = db.prepare('INSERT INTO message_search_index (rowid, body) VALUES (?, ?)')
  const messageAt: Record<string, number> = {}
  MESSAGES.forEach(([label, room, creator, minutesAgo, body], index) => {
    const at = stamp((messageAt[label] = now - minutesAgo * MINUTE))
    const messageId = (messages[label] = id('messages', label))
    insertMessage.run(messageId, rooms[room], users[creator], String(index + 1).padStart(4, '0'), at, at)
    insertBody.run(id('action_text_rich_texts', label), body, messageId, at, at)
    insertSearch.run(messageId, plainText(body, () => null))
  })

  const insertBoost = db.prepare('INSERT INTO boosts (id, message_id, booster_id, content, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)')
  BOOSTS.forEach(([label, message, booster, content], index) => {
    const at = stamp(messageAt[message]! + MINUTE + index * 1000)
    insertBoost.run(id('boosts', label), messages[message], users[booster], content, at, at)
  })

  const webhookAt = stamp(now - 56 * DAY)
  db.prepare('INSERT INTO webhooks (id, user_id, url, created_at, updated_at) VALUES (?, ?, ?, ?, ?)').run(id('webhooks', 'bender'), users.bender, 'http://example.com/bender', webhookAt, webhookAt)

  const pushAt = spread(55 * DAY, MINUTE)
  const insertPush = db.prepare('INSERT INTO push_subscriptions (id, user_id, endpoint, p256dh_key, auth_key, user_agent, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
  PUSH_SUBSCRIPTIONS.forEach(([label, user, endpoint, key], index) => {
    insertPush.run(id('push_subscriptions', label), users[user], endpoint, key, 'xxx2DtgvmLkevKRwoyahJl0efg', CHROME, pushAt(index), pushAt(index))
  })

  const sessionAt = stamp(now - 54 * DAY)
  db.prepare('INSERT INTO sessions (id, user_id, token, user_agent, last_active_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
    .run(id('sessions', 'david_safari'), users.david, 'AxJs94fteQ5Autv2VrKsH68c', SAFARI, stamp(now - 2 * HOUR), sessionAt, sessionAt)

  const searchAt = stamp(now - 3 * DAY)
  db.prepare('INSERT INTO searches (id, user_id, query, created_at, updated_at) VALUES (?, ?, ?, ?, ?)').run(id('searches', 'david_pizza'), users.david, 'pizza', searchAt, searchAt)

  return { labels, users, rooms, messages }
}
