// The harness-shaped dataset: `npm run seed -- --harness`. It reproduces what the verification
// harness's seed holds (harness.md §1.3; its fixtures/seeds/default.rb), so our tests meet that
// data: upstream's test fixtures with label-hash ids (large, and in no order of time), later rows
// numbered after them as Rails numbers them, David's every bell state, a message whose author row
// is gone, deactivated, banned and bot people, a Rails 7 (Marshal-era) mention, one message of
// every presentation type with real files, and labels.json with the harness's keys.
//
// The fixtures are written as Rails' fixture loader writes them (straight into the tables); the
// rest goes through the model functions the app uses, then each step's rows get the seed-clock
// instant it happened at, as the harness seed's frozen clock gives them.
import bcrypt from 'bcrypt'
import { randomBytes } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { Config } from '../../server/config.ts'
import { RailsSigning } from '../../server/lib/rails/signing.ts'
import { dbTime } from '../../server/lib/time.ts'
import type { Models } from '../../server/models/index.ts'
import type { Involvement } from '../../server/models/membership.ts'
import type { MessageRow } from '../../server/models/message.ts'
import { boostMessage, postMessage, postMessageWithAttachment, reviseMessage } from '../../server/models/message/posting.ts'
import { rubyStrip } from '../../server/models/rich-text/html.ts'
import { plainText } from '../../server/models/rich-text/index.ts'
import type { Store } from '../../server/models/store.ts'
import { createBot } from '../../server/models/user/bot-setup.ts'
import { botKey } from '../../server/models/user/bot.ts'
import { joinAccount } from '../../server/models/user/joining.ts'
import { transferId } from '../../server/models/user/transferable.ts'
import { STATUSES } from '../../server/models/user.ts'
import { seedClientMessageId } from './seed.ts'
import { FIXTURE_JOIN_CODE, insertFixtures } from './support/harness-fixtures.ts'
import { makeHarnessFiles, SeedFiles, type HarnessFiles, type PreparedFile } from './support/harness-files.ts'
import {
  HARNESS_MESSAGES, HARNESS_NOW, marshalEraMentionHtml, mentionHtml, MISSING_CREATOR_ID, UNRENDERABLE,
  type HarnessPerson, type HarnessRoom, type Mentions, type MessageSpec,
} from './support/harness-messages.ts'

export { HARNESS_NOW } from './support/harness-messages.ts'

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR
export const BANNED_IP = '203.0.113.9'
const RITA_UUID = '00000000-0000-4000-8000-000000000000'

export interface HarnessSeedOptions {
  secretKeyBase: string
  // Where the blobs go (the server's CAMPFIRE_STORAGE_PATH/files).
  filesPath: string
  // VERIFICATION_PASSWORD: every person with a password has this one.
  password: string
  // VERIFICATION_BENDER_TOKEN, …_DEPLOY_TOKEN, …_OLD_TOKEN; generated when missing.
  botTokens?: { bender?: string; deploy_bot?: string; old_bot?: string }
  // bcrypt cost; the harness seed uses 12.
  cost?: number
}

// labels.json: flat keys ("rooms.watercooler", "messages.busy_060", …), as the harness writes them.
export type HarnessLabels = Record<string, string | number>

const stamp = (ms: number): string => dbTime(ms * 1000)

// Model functions stamp rows with the real clock; the seed clock is two months behind it. After
// each step, every stamp the step wrote (anything later than the seed ever gets) becomes that
// step's instant, as the harness seed's travel_to gives them.
class SeedClock {
  private readonly statements: { run: (at: string, cutoff: string) => unknown }[]
  private readonly cutoff = stamp(HARNESS_NOW + DAY)

  constructor(models: Models) {
    const stamped: Record<string, string[]> = {
      accounts: ['created_at', 'updated_at'], users: ['created_at', 'updated_at'], rooms: ['created_at', 'updated_at'],
      memberships: ['created_at', 'updated_at'], messages: ['created_at', 'updated_at'], action_text_rich_texts: ['created_at', 'updated_at'],
      boosts: ['created_at', 'updated_at'], sessions: ['created_at', 'updated_at', 'last_active_at'], webhooks: ['created_at', 'updated_at'],
      push_subscriptions: ['created_at', 'updated_at'], searches: ['created_at', 'updated_at'], bans: ['created_at', 'updated_at'],
      active_storage_blobs: ['created_at'], active_storage_attachments: ['created_at'],
    }
    this.statements = Object.entries(stamped).flatMap(([table, columns]) => columns.map((column) => models.db.prepare(`UPDATE ${table} SET ${column} = ? WHERE ${column} >= ?`)))
    if (Date.now() < HARNESS_NOW + DAY) throw new Error('the harness seed needs a clock past 2026-03-03 (its own stands at 2026-03-02 16:00 UTC)')
  }

  at<T>(ms: number, write: () => T): T {
    const result = write()
    for (const statement of this.statements) statement.run(stamp(ms), this.cutoff)
    return result
  }
}

// Everything made from files before the database transaction: attachments by message label, avatars.
interface Prepared {
  attachments: Map<string, PreparedFile>
  avatars: Record<'jason' | 'deploy_bot', Awaited<ReturnType<SeedFiles['avatar']>>>
}

async function prepareFiles(filesPath: string): Promise<Prepared> {
  const files: HarnessFiles = await makeHarnessFiles()
  const seedFiles = await SeedFiles.open(filesPath)
  try {
    const attachments = new Map<string, PreparedFile>()
    for (const spec of HARNESS_MESSAGES) if (spec.attachment) attachments.set(spec.label!, await seedFiles.attachment(files[spec.attachment]))
    return { attachments, avatars: { jason: await seedFiles.avatar(files.moon), deploy_bot: await seedFiles.avatar(files.moon) } }
  } finally {
    await seedFiles.close()
  }
}

// Fills an empty database (and the files folder) with the harness-shaped dataset; answers its labels.
export async function seedHarness(store: Store, options: HarnessSeedOptions): Promise<HarnessLabels> {
  if (store.writeNow((m) => m.accounts.first())) throw new Error('this database already has an account; seed an empty one')
  // One digest for everyone, in Ruby's $2a$ spelling (the same hash as $2b$ for every password bcrypt reads whole: up to 72 bytes).
  const digest = bcrypt.hashSync(options.password, options.cost ?? 12).replace(/^\$2b\$/, '$2a$')
  const prepared = await prepareFiles(options.filesPath)
  const signing = new RailsSigning(options.secretKeyBase)
  const { labels, unrenderable } = store.writeNow((models) => new HarnessBuild(models, signing, options, digest, prepared).run())
  // The harness removes the author with referential integrity off; SQLite only lets that happen outside a transaction.
  const db = store.writeDb
  db.pragma('foreign_keys = OFF')
  try {
    db.prepare('UPDATE messages SET creator_id = ? WHERE id = ?').run(MISSING_CREATOR_ID, unrenderable)
  } finally {
    db.pragma('foreign_keys = ON')
  }
  return labels
}

// `npm run seed -- --harness`: the dataset, labels.json beside the database, and what to sign in with.
export async function seedHarnessCommand(store: Store, config: Config, password: string): Promise<void> {
  const env = process.env
  const started = performance.now()
  const labels = await seedHarness(store, {
    secretKeyBase: config.secretKeyBase, filesPath: config.filesPath, password,
    botTokens: { bender: env.VERIFICATION_BENDER_TOKEN, deploy_bot: env.VERIFICATION_DEPLOY_TOKEN, old_bot: env.VERIFICATION_OLD_TOKEN },
  })
  // The harness ships its seed checkpointed.
  store.writeDb.pragma('wal_checkpoint(TRUNCATE)')
  const labelsPath = join(dirname(config.databasePath), 'labels.json')
  writeFileSync(labelsPath, JSON.stringify(labels, null, 2) + '\n')
  console.log(`Seeded ${config.databasePath} with the harness dataset in ${Math.round(performance.now() - started)} ms (files in ${config.filesPath})`)
  console.log(`  busy room "All Talk" = ${labels['rooms.watercooler']} (busy_060 = ${labels['messages.busy_060']}); write room "HQ" = ${labels['rooms.hq']}`)
  console.log(`  labels: ${labelsPath}`)
  console.log(`  sign in as ${labels['emails.david']} (or any emails.* label) with password: ${labels['passwords.all']}`)
}

class HarnessBuild {
  private readonly labels: HarnessLabels = { 'clock.now': new Date(HARNESS_NOW).toISOString().replace('.000Z', 'Z') }
  private readonly clock: SeedClock
  private readonly users = {} as Record<HarnessPerson, number>
  private readonly rooms = {} as Record<HarnessRoom, number>
  private readonly messages = new Map<string, MessageRow>()
  private readonly names = new Map<number, string>()
  private clientMessageIds = 0

  constructor(
    private readonly models: Models,
    private readonly signing: RailsSigning,
    private readonly options: HarnessSeedOptions,
    private readonly digest: string,
    private readonly prepared: Prepared,
  ) {
    this.clock = new SeedClock(models)
  }

  run(): { labels: HarnessLabels; unrenderable: number } {
    const fixtures = insertFixtures(this.models.db, { now: HARNESS_NOW, stamp, digest: this.digest, benderToken: this.botToken('bender') })
    Object.assign(this.labels, fixtures.labels)
    Object.assign(this.users, fixtures.users)
    Object.assign(this.rooms, fixtures.rooms)
    this.addPeople()
    this.addRooms()
    for (const spec of HARNESS_MESSAGES) this.post(spec)
    const unrenderable = this.post(UNRENDERABLE)
    this.settlePeople()
    this.settleRooms()
    this.addStrings()
    return { labels: Object.fromEntries(Object.entries(this.labels).sort(([a], [b]) => (a < b ? -1 : 1))), unrenderable: unrenderable.id }
  }

  private label(table: string, name: string, value: string | number): void {
    const key = `${table}.${name}`
    if (key in this.labels) throw new Error(`label ${key} already taken`)
    this.labels[key] = value
  }

  private readonly generatedTokens: Partial<Record<string, string>> = {}

  private botToken(bot: 'bender' | 'deploy_bot' | 'old_bot'): string {
    return this.options.botTokens?.[bot] || (this.generatedTokens[bot] ??= randomHex())
  }

  private person(label: HarnessPerson, at: number, create: () => number): number {
    const id = this.clock.at(at, create)
    this.users[label] = id
    this.label('users', label, id)
    return id
  }

  private addPeople(): void {
    const { models, digest } = this
    const now = HARNESS_NOW
    this.person('rita', now - 40 * DAY, () => {
      const id = joinAccount(models, { name: 'Rita Lopez', emailAddress: 'rita@37signals.com', passwordDigest: digest })
      models.db.prepare('UPDATE users SET bio = ? WHERE id = ?').run('Support', id)
      return id
    })
    this.person('mallory', now - 39 * DAY, () => joinAccount(models, { name: 'Mallory Banned', emailAddress: 'mallory@example.com', passwordDigest: digest }))
    for (const [label, name, webhookUrl, at] of [['deploy_bot', 'Deploy Bot', null, now - 38 * DAY], ['old_bot', 'Old Bot', 'https://example.com/old-bot', now - 37 * DAY]] as const) {
      this.person(label, at, () => {
        const id = createBot(models, { name, webhookUrl })
        models.bots.retoken(id, this.botToken(label))
        return id
      })
    }
    const { avatars } = this.prepared
    this.clock.at(now - 36 * DAY, () => models.avatars.attach(this.users.jason, avatars.jason.original, avatars.jason.square))
    this.clock.at(now - 36 * DAY + MINUTE, () => models.avatars.attach(this.users.deploy_bot, avatars.deploy_bot.original, avatars.deploy_bot.square))
    for (const [id, name] of models.db.prepare<[], [number, string]>('SELECT id, name FROM users').raw().all()) this.names.set(id, name)
  }

  private room(label: HarnessRoom, at: number, create: () => number): void {
    this.rooms[label] = this.clock.at(at, create)
    this.label('rooms', label, this.rooms[label])
  }

  private addRooms(): void {
    const { models, users } = this
    const now = HARNESS_NOW
    this.room('quiet', now - 35 * DAY, () => models.closedRooms.create('Quiet Corner', users.kevin, [users.kevin, users.david]))
    this.room('archive', now - 34 * DAY, () => models.openRooms.create('Archive', users.david))
    this.room('broken', now - 33 * DAY, () => models.closedRooms.create('Broken', users.david, [users.david]))
    this.room('group_direct', now - 32 * DAY, () => models.directRooms.findOrCreateFor([users.david, users.jason, users.jz, users.kevin], users.david).id)
    this.clock.at(now - 31 * DAY, () => models.roomMemberships.grantTo(this.rooms.designers, [users.rita, users.deploy_bot]))
    this.clock.at(now - 31 * DAY + MINUTE, () => models.roomMemberships.grantTo(this.rooms.designers, [users.mallory]))
  }

  private readonly mentions: Mentions = {
    mention: (who) => mentionHtml(this.signing.signedGlobalId('User', this.users[who]), { id: this.users[who], name: this.names.get(this.users[who])! }),
    marshalEraMention: (who) => marshalEraMentionHtml(this.users[who]),
  }

  // A mention's name in the search text, found as upstream finds it: by a signature that
  // verifies, or else (people only) by the GlobalID inside an envelope that does not.
  private readonly mentionName = (sgid: string): string | null => {
    const found = this.signing.verifySignedGlobalId(sgid) ?? unverifiedUser(sgid)
    return found?.model === 'User' ? (this.names.get(Number(found.id)) ?? null) : null
  }

  private post(spec: MessageSpec): MessageRow {
    const { models } = this
    const input = { roomId: this.rooms[spec.room], creatorId: this.users[spec.by], clientMessageId: seedClientMessageId(++this.clientMessageIds) }
    const message = this.clock.at(spec.at, () => {
      const file = spec.attachment ? this.prepared.attachments.get(spec.label!)! : null
      if (!file) return postMessage(models, { ...input, ...this.compose(spec.body!) })
      const posted = postMessageWithAttachment(models, { ...input, body: '', plainText: file.blob.filename }, file.blob, file.derived)
      // Message.create!(body: nil, attachment:) leaves a rich text row without a body.
      models.db.prepare("UPDATE action_text_rich_texts SET body = NULL WHERE record_type = 'Message' AND record_id = ?").run(posted.id)
      return posted
    })
    if (spec.raw) {
      const html = spec.raw(this.mentions)
      this.clock.at(spec.at, () => models.messages.revise(message.id, html, plainText(html, this.mentionName)))
    }
    if (spec.revised) {
      const revised = this.compose(spec.revised.body)
      this.clock.at(spec.revised.at, () => reviseMessage(models, message, revised.body, revised.plainText))
    }
    for (const boost of spec.boosts ?? []) {
      const row = this.clock.at(boost.at, () => boostMessage(models, message, this.users[boost.by], boost.content))
      if (boost.label) this.label('boosts', boost.label, row.id)
    }
    if (spec.label) {
      this.messages.set(spec.label, message)
      this.label('messages', spec.label, message.id)
    }
    return message
  }

  // Action Text keeps a body as it is given (Rails sanitizes when it renders, not when it saves),
  // so the harness's database holds these bodies unsanitized: a table stays a table.
  private compose(raw: string | ((mentions: Mentions) => string)): { body: string; plainText: string } {
    const body = rubyStrip(typeof raw === 'string' ? raw : raw(this.mentions))
    return { body, plainText: plainText(body, this.mentionName) }
  }

  private settlePeople(): void {
    const { models, users } = this
    const now = HARNESS_NOW
    this.clock.at(now - 30 * DAY, () => models.deactivatable.deactivate(users.rita, RITA_UUID))
    this.clock.at(now - 29 * DAY, () => models.deactivatable.deactivate(users.old_bot))
    this.clock.at(now - 28 * DAY, () => {
      models.bannable.setStatus(users.mallory, STATUSES.banned)
      models.bans.create(users.mallory, BANNED_IP)
    })
    this.label('bans', 'mallory', models.db.prepare('SELECT id FROM bans WHERE user_id = ?').pluck().get(users.mallory) as number)
    // Someone in no rooms at all sees the welcome page.
    this.person('loner', now - 27 * DAY, () => {
      const id = joinAccount(models, { name: 'Lonely Lou', emailAddress: 'lou@37signals.com', passwordDigest: this.digest })
      models.db.prepare('DELETE FROM memberships WHERE user_id = ?').run(id)
      return id
    })
    // David's bell covers every state.
    const bells: [HarnessRoom, Involvement][] = [['designers', 'mentions'], ['pets', 'everything'], ['watercooler', 'everything'], ['hq', 'nothing'], ['archive', 'invisible'], ['david_and_kevin', 'nothing']]
    this.clock.at(now, () => bells.forEach(([room, involvement]) => models.involvements.update(this.rooms[room], users.david, involvement)))
    const firefox = this.clock.at(now - 20 * DAY, () => models.pushSubscriptions.subscribe(users.david, {
      endpoint: 'https://updates.push.services.mozilla.com/wpush/v2/parity-firefox',
      p256dh_key: 'BFirefoxKeyRIXcMgkdjhRnFZaYjjGvo00dydRQbCpQTuXFjLaCPSE7ofxi19awgGc3Doqa1RmYQqsbQDfQTifFZgc',
      auth_key: 'firefoxAuthKeyAAAAAAAAA',
    }, 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14.3; rv:124.0) Gecko/20100101 Firefox/124.0'))
    this.label('push_subscriptions', 'david_firefox', firefox)
    this.clock.at(now - 2 * DAY, () => models.searches.record(users.david, 'Borgias'))
    this.clock.at(now - 1 * DAY, () => models.searches.record(users.david, 'cuckoo'))
  }

  // A room was last touched by its newest message; nobody is connected; these are the only unread rooms.
  private settleRooms(): void {
    const { db } = this.models
    db.prepare('UPDATE rooms SET updated_at = (SELECT MAX(created_at) FROM messages WHERE room_id = rooms.id) WHERE (SELECT MAX(created_at) FROM messages WHERE room_id = rooms.id) > updated_at').run()
    db.prepare('UPDATE memberships SET unread_at = NULL, connected_at = NULL, connections = 0').run()
    const unread: [HarnessRoom, HarnessPerson, string][] = [
      ['watercooler', 'david', 'bot_in_watercooler'], ['david_and_kevin', 'david', 'direct_unread'], ['group_direct', 'david', 'group_direct_first'], ['designers', 'kevin', 'boosted_by_david'],
    ]
    const markUnread = db.prepare('UPDATE memberships SET unread_at = (SELECT created_at FROM messages WHERE id = ?) WHERE room_id = ? AND user_id = ?')
    for (const [room, person, message] of unread) markUnread.run(this.messages.get(message)!.id, this.rooms[room], this.users[person])
    db.prepare('UPDATE ar_internal_metadata SET created_at = ?, updated_at = ?').run(stamp(HARNESS_NOW), stamp(HARNESS_NOW))
  }

  // The strings screens and tools need.
  private addStrings(): void {
    const { signing, users } = this
    this.label('transfers', 'david', transferId(signing, { id: users.david }, HARNESS_NOW))
    this.label('transfers', 'david_expired', transferId(signing, { id: users.david }, HARNESS_NOW - 5 * HOUR))
    this.label('transfers', 'kevin', transferId(signing, { id: users.kevin }, HARNESS_NOW))
    for (const bot of ['bender', 'deploy_bot'] as const) this.label('bot_keys', bot, botKey({ id: users[bot], bot_token: this.botToken(bot) }))
    this.label('join_codes', 'signal', FIXTURE_JOIN_CODE)
    this.label('avatar_tokens', 'david', signing.signedId('User', users.david, 'avatar'))
    this.label('avatar_tokens', 'jason', signing.signedId('User', users.jason, 'avatar'))
    this.label('passwords', 'all', this.options.password)
    this.label('ips', 'banned', BANNED_IP)
    const email = this.models.db.prepare<[number], string | null>('SELECT email_address FROM users WHERE id = ?').pluck()
    for (const [key, id] of Object.entries(this.labels).filter(([key]) => key.startsWith('users.'))) {
      const address = email.get(Number(id))
      if (address) this.label('emails', key.slice('users.'.length), address)
    }
  }
}

// The shape of the harness's own tokens: 32 hex characters.
function randomHex(): string {
  return randomBytes(16).toString('hex')
}

// lib/rails_ext/action_text_attachables.rb's reading of an sgid whose signature does not verify:
// the GlobalID in the envelope's data, or inside the Base64 of its (Marshal) message.
function unverifiedUser(sgid: string): { model: string; id: string } | null {
  try {
    const envelope = JSON.parse(Buffer.from(sgid.split('--')[0]!, 'base64').toString('utf8')) as { _rails?: { data?: string; message?: string } }
    const gid = envelope._rails?.data ?? Buffer.from(envelope._rails?.message ?? '', 'base64').toString('latin1')
    const match = /gid:\/\/campfire\/(User)\/(\d+)/.exec(gid)
    return match ? { model: match[1]!, id: match[2]! } : null
  } catch {
    return null
  }
}
