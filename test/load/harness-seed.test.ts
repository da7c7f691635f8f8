// The harness-shaped seed (`npm run seed -- --harness`) on a real app: David signs in as the
// harness does, every page of every room he can reach renders (each page of history, each
// message's permalink, every file and picture on them), so do the sidebar, search, every
// person's profile and the admin screens; the harness's route contracts and write audit pass;
// and the data really has the harness's shapes (label-hash ids, a message without an author, a
// Rails 7 mention, its labels).
import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import BetterSqlite3 from 'better-sqlite3'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, capturedLog, tempStorage, SECRET_KEY_BASE, type CapturedLog } from '../helper.ts'
import { ROOT } from '../support/server-process.ts'
import { excerpt, harnessGet, harnessLogin, HARNESS_HOST, validateRoute } from '../support/harness-client.ts'
import {
  auditWrites, checkResponse, expectedWindows, fromInject, messageOpeners, missingToken, postRequest, preparePostContract, presentationContent,
  type Acknowledgement, type Expectations,
} from '../support/harness-validator.ts'
import { BANNED_IP, seedHarness, type HarnessLabels } from './harness-seed.ts'
import { identify } from './support/harness-fixtures.ts'
import { busyLabel, MISSING_CREATOR_ID } from './support/harness-messages.ts'

const PASSWORD = '6a1f0c3e9b2d4f5a8c7e0b1d2f3a4c5e'
const TOKENS = { bender: 'b'.repeat(32), deploy_bot: 'd'.repeat(32), old_bot: 'o'.repeat(32) }

interface Seeded {
  app: FastifyInstance
  db: BetterSqlite3.Database
  labels: HarnessLabels
  cookie: string
  log: CapturedLog
  expected: Expectations
}

async function seeded(t: TestContext): Promise<Seeded> {
  const log = capturedLog()
  const { app, config } = await buildTestApp(t, { fixtures: false, logger: { level: 'warn', stream: log.stream } })
  const labels = await seedHarness(app.store, { secretKeyBase: config.secretKeyBase, filesPath: config.filesPath, password: PASSWORD, botTokens: TOKENS })
  // The harness reads the live database with its own sqlite3 process, read-only.
  const db = new BetterSqlite3(config.databasePath, { readonly: true, fileMustExist: true })
  db.pragma('busy_timeout = 10000')
  t.after(() => db.close())
  const cookie = await harnessLogin(app, String(labels['emails.david']), String(labels['passwords.all']))
  const expected = expectedWindows(db, { watercooler: id(labels, 'rooms.watercooler'), hq: id(labels, 'rooms.hq'), busy060: id(labels, 'messages.busy_060'), davidEmail: String(labels['emails.david']) })
  return { app, db, labels, cookie, log, expected }
}

const id = (labels: HarnessLabels, key: string): number => {
  const value = labels[key]
  assert.equal(typeof value, 'number', `labels.json has ${key}`)
  return value as number
}

// Same-origin URLs a page points at for GET: links, pictures, frames, sources, stylesheets. Links
// that Turbo sends with another method (sign out, delete) are left out.
function linksIn(html: string): string[] {
  const urls: string[] = []
  for (const [tag] of html.matchAll(/<(?:a|img|link|script|source|video|turbo-frame|iframe)\b[^>]*>/g)) {
    if (/data-turbo-method="(?!get)/i.test(tag)) continue
    for (const [, url] of tag.matchAll(/\s(?:href|src|poster)="(\/(?!\/)[^"]*)"/g)) urls.push(url!.replaceAll('&amp;', '&'))
  }
  return urls
}

const REDIRECTS = [301, 302, 303, 307]

test('the harness-shaped seed', async (t) => {
  const s = await seeded(t)
  const { labels, db } = s
  const get = (url: string) => harnessGet(s.app, s.cookie, url, false)

  await t.test('fixture rows have their labels\' hashes as ids, large and out of time order, and later rows are numbered after them', () => {
    for (const key of ['users.david', 'users.bender', 'rooms.watercooler', 'rooms.david_and_kevin', 'messages.first', 'messages.thirteenth', 'memberships.david_hq', 'boosts.fourth_by_bender', 'accounts.signal', 'sessions.david_safari', 'push_subscriptions.david_chrome']) {
      assert.equal(labels[key], identify(key.split('.')[1]!), key)
    }
    assert.equal(identify('david'), 127326141, 'Zlib.crc32("david") % (2**30 - 1)')
    const fixtureIds = ['first', 'second', 'third', 'fourth', 'thirteenth'].map((label) => id(labels, `messages.${label}`))
    assert.ok(id(labels, 'messages.busy_001') > Math.max(...fixtureIds), 'the seed\'s own messages come after the fixtures\' ids')
    assert.ok(id(labels, 'users.rita') > id(labels, 'users.david') && id(labels, 'users.rita') > 100_000_000)
    // In the busy room, a newer message often has a smaller id.
    const rows = db.prepare<[number], { id: number; created_at: string }>('SELECT id, created_at FROM messages WHERE room_id = ? ORDER BY created_at').all(id(labels, 'rooms.watercooler'))
    const inversions = rows.filter((row, i) => i > 0 && row.id < rows[i - 1]!.id)
    assert.ok(inversions.length >= 5, `${inversions.length} messages have a smaller id than the one before them in time`)
    assert.ok(rows.every((row) => row.id > 100_000_000), 'every busy-room id is a large one')
  })

  await t.test('the people, rooms, bells, unread flags and presence are as the harness lists them', () => {
    const user = (label: string) => db.prepare<[number], { name: string; email_address: string | null; status: number; role: number; bot_token: string | null; password_digest: string | null }>('SELECT * FROM users WHERE id = ?').get(id(labels, `users.${label}`))!
    assert.deepEqual([user('rita').status, user('rita').email_address], [1, 'rita-deactivated-00000000-0000-4000-8000-000000000000@37signals.com'])
    assert.equal(user('mallory').status, 2)
    assert.equal(db.prepare('SELECT ip_address FROM bans WHERE user_id = ?').pluck().get(id(labels, 'users.mallory')), BANNED_IP)
    assert.deepEqual([user('old_bot').status, user('old_bot').email_address, user('old_bot').bot_token], [1, null, TOKENS.old_bot])
    assert.deepEqual([user('deploy_bot').role, user('deploy_bot').bot_token, user('bender').bot_token], [2, TOKENS.deploy_bot, TOKENS.bender])
    assert.equal(db.prepare('SELECT COUNT(*) FROM memberships WHERE user_id = ?').pluck().get(id(labels, 'users.loner')), 0)
    const digests = db.prepare('SELECT DISTINCT password_digest FROM users WHERE password_digest IS NOT NULL').pluck().all() as string[]
    assert.equal(digests.length, 1)
    assert.match(digests[0]!, /^\$2a\$12\$/)
    const bells = Object.fromEntries(db.prepare<[number], [number, string]>('SELECT room_id, involvement FROM memberships WHERE user_id = ?').raw().all(id(labels, 'users.david')))
    assert.deepEqual(
      ['designers', 'pets', 'watercooler', 'hq', 'archive', 'david_and_kevin'].map((room) => bells[id(labels, `rooms.${room}`)]),
      ['mentions', 'everything', 'everything', 'nothing', 'invisible', 'nothing'],
    )
    const unread = db.prepare<[], [number, number]>('SELECT user_id, room_id FROM memberships WHERE unread_at IS NOT NULL ORDER BY user_id, room_id').raw().all()
    const expected = [['david', 'watercooler'], ['david', 'david_and_kevin'], ['david', 'group_direct'], ['kevin', 'designers']].map(([u, r]) => [id(labels, `users.${u}`), id(labels, `rooms.${r}`)])
    assert.deepEqual(unread, expected.sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!))
    assert.equal(db.prepare('SELECT COUNT(*) FROM memberships WHERE connected_at IS NOT NULL OR connections != 0').pluck().get(), 0)
    assert.equal(db.prepare('SELECT COUNT(*) FROM memberships WHERE room_id = ?').pluck().get(id(labels, 'rooms.group_direct')), 4)
    assert.deepEqual(db.prepare('SELECT endpoint FROM push_subscriptions WHERE id = ?').pluck().get(id(labels, 'push_subscriptions.david_firefox')), 'https://updates.push.services.mozilla.com/wpush/v2/parity-firefox')
    assert.ok((db.prepare('SELECT COUNT(*) FROM webhooks').pluck().get() as number) >= 2, 'Bender\'s and Old Bot\'s webhooks')
    assert.equal(db.prepare('SELECT creator_id FROM messages WHERE id = ?').pluck().get(id(labels, 'messages.unrenderable')), MISSING_CREATOR_ID)
    assert.equal(db.prepare('SELECT COUNT(*) FROM messages WHERE room_id = ?').pluck().get(id(labels, 'rooms.watercooler')), 131)
    assert.deepEqual(db.pragma('integrity_check'), [{ integrity_check: 'ok' }])
  })

  await t.test('labels.json has every key the harness reads', () => {
    for (const key of ['rooms.watercooler', 'rooms.hq', 'messages.busy_060', 'avatar_tokens.jason', 'emails.david', 'passwords.all', 'clock.now', 'transfers.david', 'transfers.david_expired', 'transfers.kevin', 'bot_keys.bender', 'bot_keys.deploy_bot', 'join_codes.signal', 'avatar_tokens.david', 'ips.banned', 'emails.loner', 'emails.rita']) {
      assert.ok(key in labels, key)
    }
    assert.equal(labels['clock.now'], '2026-03-02T16:00:00Z')
    assert.equal(labels['bot_keys.bender'], `${labels['users.bender']}-${TOKENS.bender}`)
    assert.deepEqual(Object.keys(labels), Object.keys(labels).sort())
    assert.equal(labels['messages.busy_060'], db.prepare("SELECT m.id FROM messages m JOIN action_text_rich_texts rt ON rt.record_id = m.id AND rt.record_type = 'Message' WHERE rt.body LIKE '<p>060. %'").pluck().get())
  })

  // Every page fetched so far, with its HTML.
  const visited = new Map<string, string>()
  // GETs a page, checks it answered (a page of history past the first message answers 204, as
  // upstream's does), and returns its HTML.
  async function page(url: string, statuses = [200]): Promise<string> {
    const response = await get(url)
    visited.set(url, response.body)
    assert.ok(statuses.includes(response.statusCode), `GET ${url}: ${excerpt(response)}`)
    return response.body
  }

  const davidsRooms = db.prepare<[number], number>('SELECT room_id FROM memberships WHERE user_id = ? ORDER BY room_id').pluck().all(id(labels, 'users.david'))

  await t.test('every room David is in renders, with every page of its history and every message\'s permalink', async () => {
    assert.equal(davidsRooms.length, 10)
    for (const room of davidsRooms) {
      const html = await page(`/rooms/${room}`)
      const shown = new Set(messageOpeners(html).openers.map((o) => Number(o.id)))
      let oldest = messageOpeners(html).openers[0]?.id
      // Back through history, 40 at a time, until a page comes back empty.
      for (let pages = 0; oldest !== undefined; pages++) {
        assert.ok(pages < 10, 'history ends')
        const fragment = await page(`/rooms/${room}/messages?before=${oldest}`, [200, 204])
        const openers = messageOpeners(fragment).openers
        for (const opener of openers) shown.add(Number(opener.id))
        oldest = openers[0]?.id
      }
      const all = db.prepare<[number], number>('SELECT id FROM messages WHERE room_id = ?').pluck().all(room)
      assert.deepEqual([...shown].sort(), [...all].sort(), `room ${room}'s pages show each of its messages`)
      for (const message of all) {
        await page(`/rooms/${room}/@${message}`)
        await page(`/messages/${message}/boosts`)
      }
    }
  })

  await t.test('the sidebar, search, every profile and the admin screens render', async () => {
    await page('/users/me/sidebar')
    for (const q of ['coffee', 'Borgias', 'cuckoo', 'launch', 'David', 'moon']) await page(`/searches?q=${q}`)
    for (const person of db.prepare<[], number>('SELECT id FROM users').pluck().all()) await page(`/users/${person}`)
    await page(`/users/${id(labels, 'users.david')}/profile`)
    for (const url of ['/account/edit', '/account/users.turbo_stream', '/account/bots', `/account/bots/${id(labels, 'users.deploy_bot')}/edit`, `/account/bots/${id(labels, 'users.bender')}/edit`]) await page(url)
    const avatar = await get(`/users/${labels['avatar_tokens.jason']}/avatar`)
    assert.equal(avatar.statusCode, 200)
    assert.match(String(avatar.headers['content-type']), /^image\/webp/)
  })

  await t.test('every link, picture and file on those pages answers', async () => {
    const followed = new Map<string, number>()
    for (const html of [...visited.values()]) {
      for (const link of linksIn(html)) {
        if (followed.has(link) || visited.has(link) || /^\/(session|cable)\b/.test(link)) continue
        const response = await get(link)
        followed.set(link, response.statusCode)
      }
    }
    assert.ok([...followed.keys()].some((url) => url.startsWith('/rails/active_storage/representations/')), 'thumbnails and posters')
    assert.ok([...followed.keys()].some((url) => url.startsWith('/rails/active_storage/blobs/')), 'file downloads')
    const broken = [...followed].filter(([, status]) => status !== 200 && !REDIRECTS.includes(status))
    assert.deepEqual(broken, [], `${followed.size} links followed`)
  })

  const presentationOf = (html: string, message: number): string | undefined => {
    const { openers } = messageOpeners(html)
    const index = openers.findIndex((o) => Number(o.id) === message)
    if (index === -1) return undefined
    const segment = html.slice(openers[index]!.end, openers[index + 1]?.start ?? html.length)
    return presentationContent(segment, openers[index]!.id, openers[index]!.tag).content
  }

  await t.test('the Broken room shows the message whose author row is gone', async () => {
    const message = id(labels, 'messages.unrenderable')
    const html = await page(`/rooms/${id(labels, 'rooms.broken')}`)
    assert.match(presentationOf(html, message) ?? '', /This message lost its author\./)
  })

  await t.test('every message shows the words its search row holds, as the harness checks them (sounds and files aside)', async () => {
    const designers = id(labels, 'rooms.designers')
    const html = (await page(`/rooms/${designers}`)) + (await page(`/rooms/${designers}/messages?before=${labels['messages.plain']}`, [200, 204]))
    const words = db.prepare<[number], { id: number; body: string; label: string | null }>(
      'SELECT m.id, idx.body FROM messages m JOIN message_search_index idx ON idx.rowid = m.id WHERE m.room_id = ?',
    ).all(designers)
    // A sound shows its picture or line, a file its name in an attribute; a pasted tweet shows
    // only its embed (RemoveSoloUnfurledLinkText, upstream too).
    const skipped = new Set(['sound_image', 'sound_text', 'image', 'image_large', 'video', 'file', 'file_bmp', 'opengraph_trix_tweet'].map((label) => id(labels, `messages.${label}`)))
    const missing = words.filter((row) => !skipped.has(row.id)).flatMap((row) => {
      const content = presentationOf(html, row.id)
      // The search text numbers an ordered list's items ("1. Finish…"); the page's <ol> numbers them itself.
      const text = row.body.replace(/^ *\d+\. /gm, '')
      const token = content === undefined ? '(not on the page)' : missingToken(content, text.match(/[A-Za-z0-9_]+/g) ?? [])
      const label = Object.entries(labels).find(([key, value]) => key.startsWith('messages.') && value === row.id)?.[0]
      return token === null ? [] : [`${label ?? row.id} lacks "${token}"`]
    })
    assert.deepEqual(missing, [])
  })

  await t.test('the Rails 7 mention shows David, as upstream still resolves it', async () => {
    const html = await page(`/rooms/${id(labels, 'rooms.designers')}/@${labels['messages.mention_marshal']}`)
    const content = presentationOf(html, id(labels, 'messages.mention_marshal')) ?? ''
    assert.match(content, new RegExp(`class="mention"[^>]*data-user-id="${labels['users.david']}"`), content)
  })

  await t.test('the harness\'s read routes pass their contracts', async () => {
    const watercooler = id(labels, 'rooms.watercooler')
    const validate = (kind: Parameters<typeof validateRoute>[5], url: string) => validateRoute(s.app, s.cookie, db, s.expected, watercooler, kind, url)
    const room = await validate('room_show', `/rooms/${watercooler}`)
    const busy = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => BigInt(id(labels, `messages.${busyLabel(from + i)}`)))
    assert.deepEqual(room.messageIds!.slice(0, 29), busy(92, 120))
    const history = await validate('messages_page', `/rooms/${watercooler}/messages?before=${labels['messages.busy_060']}`)
    assert.deepEqual(history.messageIds, busy(20, 59))
    const sidebar = await validate('sidebar', '/users/me/sidebar')
    assert.deepEqual(sidebar.required.sort(), ['All Pets', 'HQ', 'shared_rooms'])
    const search = await validate('search', '/searches?q=coffee')
    assert.ok(search.messageIds!.length > 12, 'coffee in the busy room and in Designers')
    await validate('up', '/up')
    await validate('avatar', `/users/${labels['avatar_tokens.jason']}/avatar`)
  })

  await t.test('posts to HQ pass the post contract, and the write audit finds every one', async () => {
    const hq = id(labels, 'rooms.hq')
    const { contract, failures } = preparePostContract(fromInject(await get(`/rooms/${hq}`)), hq)
    assert.deepEqual(failures, [])
    const mark = { initialCount: db.prepare('SELECT COUNT(*) FROM messages WHERE room_id = ?').pluck().get(hq) as number, initialMaxId: db.prepare('SELECT MAX(id) FROM messages').pluck().get() as number }
    const acknowledged: Acknowledgement[] = []
    await Promise.all(Array.from({ length: 12 }, async (_, i) => {
      const request = postRequest(hq, s.cookie, i % 4 !== 3)
      const response = await s.app.inject({ method: 'POST', url: request.url, headers: { host: HARNESS_HOST, ...request.headers }, payload: request.payload })
      const verdict = checkResponse(contract!, fromInject(response), request.token)
      assert.deepEqual(verdict.failures, [], `post ${i}: ${excerpt(response)}`)
      acknowledged.push({ id: Number(verdict.messageId), token: request.token })
    }))
    assert.ok(acknowledged.every((a) => (a.id as number) > mark.initialMaxId), 'new posts are numbered after the seed\'s largest id')
    assert.deepEqual(auditWrites(db, { roomId: hq, ...mark, acknowledged }), [])
  })

  await t.test('nothing was logged as an error', () => {
    assert.deepEqual(s.log.errors.map((line) => `${line.msg} ${JSON.stringify(line.err ?? '')}`), [])
    assert.ok(visited.size > 350, `${visited.size} pages`)
  })
})

test('npm run seed -- --harness seeds a storage folder with the environment\'s password and tokens, and labels.json beside the database', async (t) => {
  const storage = tempStorage(t)
  const env = {
    ...process.env, CAMPFIRE_STORAGE_PATH: storage, SECRET_KEY_BASE, VERIFICATION_PASSWORD: PASSWORD,
    VERIFICATION_BENDER_TOKEN: TOKENS.bender, VERIFICATION_DEPLOY_TOKEN: TOKENS.deploy_bot, VERIFICATION_OLD_TOKEN: TOKENS.old_bot,
  }
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'test/load/seed.ts', '--harness'], { cwd: ROOT, env })
  assert.match(stdout, /harness dataset/)
  const labels = JSON.parse(readFileSync(join(storage, 'db', 'labels.json'), 'utf8')) as HarnessLabels
  assert.equal(labels['passwords.all'], PASSWORD)
  assert.equal(labels['bot_keys.deploy_bot'], `${labels['users.deploy_bot']}-${TOKENS.deploy_bot}`)
  assert.equal(labels['rooms.watercooler'], identify('watercooler'))
  const db = new BetterSqlite3(join(storage, 'db', 'production.sqlite3'), { readonly: true })
  t.after(() => db.close())
  // Five files with their thumbnails, the video's preview image and poster, two avatars with their squares.
  assert.equal(db.prepare('SELECT COUNT(*) FROM active_storage_blobs').pluck().get(), 13)
  assert.deepEqual(db.pragma('integrity_check'), [{ integrity_check: 'ok' }])
})
