import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { spawn } from 'node:child_process'
import BetterSqlite3 from 'better-sqlite3'
import { parseFragment } from 'parse5'
import { RailsSigning } from '../../server/lib/rails/signing.ts'
import { SECRET_KEY_BASE, tempStorage } from '../helper.ts'
import { DEFAULT_PASSWORD } from '../load/seed.ts'
import { CookieJar, formPost, request, ROOT, startServer, stopServer } from '../support/server-process.ts'
import { runAdmin } from './support/admin-script.ts'
import { seededStorage } from './support/seeded-storage.ts'
import { busyExport, sampleExport, samplePng, TEAM, tsAt, users, writeExportFolder, zipBomb, zipExport, zipSlip, type ExportFiles } from './support/slack-export.ts'

const importSlack = (storage: string, ...args: string[]) => runAdmin('import-slack', args, { CAMPFIRE_STORAGE_PATH: storage })
const database = (storage: string) => new BetterSqlite3(join(storage, 'db', 'production.sqlite3'), { readonly: true })

// One row of a query, read through a connection of its own (closed again, so the import's own
// connections are the only ones left).
function row(storage: string, sql: string): unknown {
  const db = database(storage)
  try {
    return db.prepare(sql).raw().get()
  } finally {
    db.close()
  }
}
const COUNTS = 'SELECT (SELECT count(*) FROM messages), (SELECT count(*) FROM users), (SELECT count(*) FROM rooms), (SELECT count(*) FROM boosts), (SELECT count(*) FROM active_storage_blobs), (SELECT count(*) FROM memberships)'

interface Imported {
  id: number
  room: string | null
  author: string
  created_at: string
  body: string
}

function importedMessages(storage: string): Imported[] {
  const db = database(storage)
  try {
    return db.prepare(
      `SELECT m.id, r.name AS room, u.name AS author, m.created_at, coalesce(t.body, '') AS body FROM slack_import_records k
       JOIN messages m ON m.id = k.record_id JOIN rooms r ON r.id = m.room_id JOIN users u ON u.id = m.creator_id
       LEFT JOIN action_text_rich_texts t ON t.record_type = 'Message' AND t.record_id = m.id
       WHERE k.kind = 'message' ORDER BY m.room_id, m.created_at, m.id`,
    ).all() as Imported[]
  } finally {
    db.close()
  }
}

async function importedSample(t: { after: (fn: () => void) => void }) {
  const seeded = seededStorage(t)
  const folder = writeExportFolder(join(tempStorage(t), 'export'), await sampleExport())
  const result = await importSlack(seeded.storage, '--from', folder)
  assert.equal(result.code, 0, result.stderr)
  return { ...seeded, folder, result }
}

test('a Slack export becomes people, rooms and Pings, and messages with their authors, times, mentions, threads, boosts and files', { timeout: 120_000 }, async (t) => {
  const { storage, labels, result } = await importedSample(t)
  const db = database(storage)
  t.after(() => db.close())
  const person = (email: string) => db.prepare('SELECT id, name, role, status, bio, password_digest, bot_token FROM users WHERE email_address = ? COLLATE NOCASE').get(email) as Record<string, unknown> | undefined
  const named = (name: string) => db.prepare('SELECT id, role, status, bot_token, email_address FROM users WHERE name = ?').all(name) as Record<string, unknown>[]

  // People: matched by email whatever its case, created without a password, deleted ones deactivated, bots without keys.
  assert.equal(named('Jason Zimdars').length, 1, 'Jason Zimdars is matched by email, not created again')
  const ada = person('ada@example.org')!
  assert.deepEqual([ada.role, ada.status, ada.bio, ada.password_digest], [0, 0, 'Analyst of engines', null])
  const avatar = db.prepare("SELECT b.filename FROM active_storage_attachments a JOIN active_storage_blobs b ON b.id = a.blob_id WHERE a.record_type = 'User' AND a.name = 'avatar' AND a.record_id = ?").pluck().get(ada.id)
  assert.equal(avatar, 'ada.png', 'an avatar the export holds becomes the person\'s avatar')
  const [gone] = named('Gone Person')
  assert.equal(gone!.status, 1, 'a person Slack deleted is created deactivated')
  assert.match(String(gone!.email_address), /^gone-deactivated-[0-9a-f-]+@example\.org$/)
  const bots = named('Deploy Bot')
  assert.equal(bots.length, 1, 'the bot user and its bot id are one Campfire bot')
  assert.deepEqual([bots[0]!.role, bots[0]!.bot_token], [2, null])
  assert.equal(named('Outside Person')[0]?.status, 1, 'an author from another workspace is kept, deactivated')

  // Rooms: public channels open (everyone is in them), private ones closed with their members, DMs Pings.
  const room = (name: string) => db.prepare('SELECT id, type FROM rooms WHERE name = ?').get(name) as { id: number; type: string } | undefined
  const members = (roomId: number) => (db.prepare('SELECT user_id FROM memberships WHERE room_id = ? ORDER BY user_id').pluck().all(roomId) as number[])
  const general = room('general')!
  assert.equal(general.type, 'Rooms::Open')
  const active = db.prepare("SELECT id FROM users WHERE status = 0 AND role != 2 ORDER BY id").pluck().all() as number[]
  for (const id of active) assert.ok(members(general.id).includes(id), `active person ${id} is in the open room`)
  assert.equal(room('all talk 2')?.type, 'Rooms::Open', 'a channel whose name a room has gets a number')
  assert.equal(room('announcements')?.type, 'Rooms::Open', 'an archived channel is imported too')
  assert.match(result.stdout, /Archived channels imported: #announcements/)
  const secret = room('secret-plans')!
  assert.equal(secret.type, 'Rooms::Closed')
  assert.deepEqual(members(secret.id), [labels.users.jz, ada.id as number].sort((a, b) => a - b))
  const messages = importedMessages(storage)
  const direct = messages.find((message) => message.body.includes('A direct word'))!
  assert.equal(direct.room, null, 'a DM becomes a Ping')

  // Messages: authors, Slack times to the microsecond, order, rich text, mentions, channel links.
  const inGeneral = messages.filter((message) => message.room === 'general')
  assert.deepEqual(inGeneral.map((message) => message.created_at), [...inGeneral.map((message) => message.created_at)].sort())
  const hello = inGeneral[0]!
  assert.equal(hello.author, 'Ada Import')
  assert.equal(hello.created_at, `2024-01-15 09:01:00.000101`)
  assert.equal(tsAt('2024-01-15T09:01:00Z', 101), `${Date.UTC(2024, 0, 15, 9, 1) / 1000}.000101`)
  assert.match(hello.body, /Hello <strong>team<\/strong> <action-text-attachment sgid="[^"]+" content-type="application\/vnd\.campfire\.mention">/)
  const sgid = /sgid="([^"]+)"/.exec(hello.body)![1]!
  assert.deepEqual(new RailsSigning(SECRET_KEY_BASE).verifySignedGlobalId(sgid), { model: 'User', id: String(labels.users.jz) }, 'the mention is a real, signed mention of the matched person')
  assert.match(hello.body, /<a href="https:\/\/example\.com\/docs\?a=1&amp;b=2">the docs<\/a>/)
  assert.match(hello.body, new RegExp(`<a href="/rooms/${room('announcements')!.id}">#announcements</a>`))
  assert.match(hello.body, /🎉/)
  const reply = inGeneral.find((message) => message.body.includes('Sounds good'))!
  assert.match(reply.body, /^<blockquote>↪ Jason Zimdars: Deploy plan for Friday: carefully<\/blockquote><p>Sounds good to me<\/p>$/, 'a thread reply quotes the start of its parent')
  assert.ok(inGeneral.indexOf(reply) > inGeneral.findIndex((message) => message.body.includes('Deploy plan')))
  assert.ok(inGeneral.some((message) => message.body === '<p>The final wording</p>'), 'an edited message keeps its last text')
  assert.ok(!messages.some((message) => /has joined the channel/.test(message.body)), 'joins are left out')
  assert.match(result.stdout, /skipped: Slack channel join\s+1/)
  assert.ok(inGeneral.some((message) => message.author === 'Deploy Bot' && message.body === '<p>Build passed <del>finally</del></p>'))
  assert.ok(inGeneral.some((message) => message.author === 'Gone Person' && message.body === '<ul><li>first point</li><li>second point</li></ul><blockquote>a quote</blockquote><pre>const a = 1 &lt; 2</pre>'))
  for (const message of messages) {
    const reparsed = parseFragment(message.body)
    assert.ok(reparsed.childNodes.length > 0 || message.body === '', 'each body parses')
  }

  // Reactions become boosts by the people who reacted; a custom emoji keeps its name.
  const boosts = db.prepare('SELECT content, booster_id FROM boosts WHERE message_id = ? ORDER BY id').all(hello.id)
  assert.deepEqual(boosts, [{ content: '👍', booster_id: labels.users.jz }, { content: '👍', booster_id: ada.id }, { content: ':party-parrot:', booster_id: labels.users.jz }])

  // A file in the export becomes an attachment with its thumbnail; one that is not is noted.
  const file = db.prepare(
    `SELECT b.id, b.key, b.filename, b.content_type, m.created_at FROM active_storage_attachments a JOIN active_storage_blobs b ON b.id = a.blob_id
     JOIN messages m ON m.id = a.record_id WHERE a.record_type = 'Message' AND m.room_id = ?`,
  ).get(general.id) as { id: number; key: string; filename: string; content_type: string; created_at: string }
  assert.deepEqual([file.filename, file.content_type], ['diagram.png', 'image/png'])
  assert.ok(existsSync(join(storage, 'files', file.key.slice(0, 2), file.key.slice(2, 4), file.key)), 'the file is stored as an upload is')
  assert.equal(db.prepare('SELECT count(*) FROM active_storage_variant_records WHERE blob_id = ?').pluck().get(file.id), 1, 'its thumbnail is made as for an upload')
  assert.equal(file.created_at, '2024-01-15 09:07:00.000108', 'the file follows its message')
  assert.ok(inGeneral.some((message) => message.body === '<p><em>a file that was not in the export: budget.pdf</em></p>'))

  // Everything is searchable.
  const search = (query: string) => db.prepare('SELECT rowid FROM message_search_index WHERE message_search_index MATCH ?').pluck().all(query) as number[]
  assert.deepEqual(search('"Sounds good"'), [reply.id])
  assert.ok(search('diagram').length >= 2, 'the message and the file are found')
  assert.ok(search('Zimdars').includes(hello.id), 'a mention is found by the name it shows')

  assert.match(result.stdout, /messages imported\s+16/)
  assert.match(result.stdout, /boosts added\s+3/)
  assert.match(result.stdout, /files not in the export\s+1/)
})

test('hostile content in an export is stored as harmless text, cut to the longest message, and named in the report', { timeout: 120_000 }, async (t) => {
  const { storage, result } = await importedSample(t)
  const bodies = importedMessages(storage).filter((message) => message.room === 'announcements').map((message) => message.body)
  assert.equal(bodies[0], '<p>&lt;script&gt;alert("export")&lt;/script&gt; and &lt;img src=x onerror=alert(1)&gt; &lt;b&gt;bold?&lt;/b&gt; &lt;javascript:alert(2)|click me&gt;</p>')
  for (const body of bodies) assert.doesNotMatch(body, /<(script|img)|href="javascript/i)
  assert.equal(bodies[1]!.length, '<p></p>'.length + 100_000, 'a text over 100,000 characters is cut to the longest a message may be')
  assert.match(result.stdout, /texts cut to the longest message\s+1/)
  assert.match(result.stdout, /general\/2024-01-16\.json: not JSON/, 'a broken day file is named and the rest imported')
})

test('importing again adds nothing, from the folder or from its zip, and a dry run writes nothing', { timeout: 120_000 }, async (t) => {
  const { storage } = seededStorage(t)
  const files = await sampleExport()
  const zip = join(tempStorage(t), 'export.zip')
  writeFileSync(zip, await zipExport(files))
  const snapshot = () => row(storage, COUNTS)
  const before = snapshot()
  const dry = await importSlack(storage, '--from', zip, '--dry-run')
  assert.equal(dry.code, 0, dry.stderr)
  assert.match(dry.stdout, /dry run: nothing was written/)
  assert.match(dry.stdout, /messages would be imported\s+16/)
  assert.deepEqual(snapshot(), before, 'a dry run writes nothing')
  assert.ok(!existsSync(join(storage, 'files')) || readdirSync(join(storage, 'files')).every((entry) => entry === 'tmp'), 'a dry run stores no file')

  const first = await importSlack(storage, '--from', zip)
  assert.equal(first.code, 0, first.stderr)
  const after = snapshot()
  const second = await importSlack(storage, '--from', writeExportFolder(join(tempStorage(t), 'export'), files))
  assert.equal(second.code, 0, second.stderr)
  assert.deepEqual(snapshot(), after, 'the second import adds nothing')
  assert.match(second.stdout, /messages already imported\s+16/)
  assert.match(second.stdout, /people already imported\s+4/)
})

test('a zip that names a file outside the export is refused, and nothing is written inside or outside', { timeout: 60_000 }, async (t) => {
  const { storage } = seededStorage(t)
  const folder = join(tempStorage(t), 'deep', 'inside')
  writeExportFolder(folder, new Map([['placeholder', '']]))
  const zip = join(folder, 'export.zip')
  writeFileSync(zip, await zipSlip(await sampleExport(), '../escaped.txt'))
  const before = row(storage, COUNTS)
  const result = await importSlack(storage, '--from', zip)
  assert.equal(result.code, 1)
  assert.match(result.stderr, /outside the export.*nothing was imported/)
  assert.deepEqual(row(storage, COUNTS), before)
  assert.ok(!existsSync(join(folder, '..', 'escaped.txt')) && !existsSync(join(folder, 'escaped.txt')), 'no file was written by its path')
})

test('a zip entry that inflates past the size it declares ends the import with a one-line error, not a crash', { timeout: 120_000 }, async (t) => {
  const { storage } = seededStorage(t)
  const files = busyExport(1, 10)
  const day = [...files.keys()].find((path) => path.startsWith('busy/'))!
  files.set(day, JSON.stringify(Array.from({ length: 400_000 }, (_, i) => ({ type: 'message', user: TEAM.jz, ts: `1672560000.${String(i).padStart(6, '0')}`, text: 'x'.repeat(60) }))))
  const zip = join(tempStorage(t), 'bomb.zip')
  writeFileSync(zip, await zipBomb(files, day, 1024))
  const result = await importSlack(storage, '--from', zip)
  assert.equal(result.code, 1)
  assert.match(result.stderr.split('\n').at(-2)!, /^import:slack: busy\/2023-01-01\.json in the zip does not hold the size its entry declares .*; the import stopped there$/)
  assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack')
})

test('a message whose file is only stored on a later run keeps its reactions once, with the part that carried them', { timeout: 120_000 }, async (t) => {
  const { storage, labels } = seededStorage(t)
  const files: ExportFiles = new Map<string, string | Buffer>([
    ['users.json', JSON.stringify([{ id: TEAM.jz, profile: { real_name: 'Jason Zimdars', email: labels.emails.jz } }, { id: TEAM.ada, profile: { real_name: 'Ada Import', email: 'ada@example.org' } }])],
    ['channels.json', JSON.stringify([{ id: TEAM.general, name: 'general', creator: TEAM.jz, members: [TEAM.jz, TEAM.ada] }])],
    ['general/2024-01-15.json', JSON.stringify([
      { type: 'message', user: TEAM.ada, ts: tsAt('2024-01-15T09:00:00Z', 1), text: 'The diagram', files: [{ id: 'F0DIAGRAM', name: 'diagram.png', mimetype: 'image/png' }], reactions: [{ name: '+1', users: [TEAM.jz, TEAM.ada] }] },
      { type: 'message', user: TEAM.ada, ts: tsAt('2024-01-15T09:01:00Z', 2), text: '', files: [{ id: 'F0OTHER', name: 'other.png', mimetype: 'image/png' }], reactions: [{ name: 'tada', users: [TEAM.jz] }] },
    ])],
    ['__uploads/F0DIAGRAM/diagram.png', await samplePng()],
    ['__uploads/F0OTHER/other.png', await samplePng()],
  ])
  const folder = writeExportFolder(join(tempStorage(t), 'export'), files)
  const boosts = () => row(storage, 'SELECT count(*) FROM boosts b JOIN messages m ON m.id = b.message_id JOIN slack_import_records k ON k.record_id = m.id AND k.kind = \'message\'') as [number]
  // A run that stores the text but not the files (here: they are over the upload limit; a kill between the two leaves the same).
  const first = await runAdmin('import-slack', ['--from', folder], { CAMPFIRE_STORAGE_PATH: storage, CAMPFIRE_MAX_UPLOAD_MB: '0.0001' })
  assert.equal(first.code, 0, first.stderr)
  assert.deepEqual(boosts(), [2], 'the text carries its reactions; the file-only message is not written yet')
  const second = await importSlack(storage, '--from', folder)
  assert.equal(second.code, 0, second.stderr)
  assert.match(second.stdout, /files attached\s+2\n/)
  assert.deepEqual(boosts(), [3], 'the stored file does not bring the text\'s reactions again; the file-only message brings its own')
  const third = await importSlack(storage, '--from', folder)
  assert.equal(third.code, 0, third.stderr)
  assert.deepEqual(boosts(), [3])
})

test('two thousand channels sharing a name get free names quickly, each once', { timeout: 180_000 }, async (t) => {
  const { storage } = seededStorage(t)
  const count = 2000
  const files: ExportFiles = new Map([
    ['users.json', JSON.stringify(users())],
    ['channels.json', JSON.stringify(Array.from({ length: count }, (_, i) => ({ id: `C0SAME${i}`, name: i % 2 ? 'general' : 'General', creator: TEAM.jz, members: [TEAM.jz] })))],
  ])
  const started = performance.now()
  const result = await importSlack(storage, '--from', writeExportFolder(join(tempStorage(t), 'export'), files))
  const seconds = (performance.now() - started) / 1000
  assert.equal(result.code, 0, result.stderr)
  const names = (row(storage, "SELECT json_group_array(name) FROM rooms WHERE lower(name) = 'general' OR lower(name) GLOB 'general [0-9]*'") as [string])[0]
  const list = JSON.parse(names) as string[]
  assert.equal(list.length, count)
  assert.equal(new Set(list.map((name) => name.toLowerCase())).size, count, 'no two rooms share a name')
  assert.ok(seconds < 60, `took ${seconds.toFixed(1)} s`)
})

test('an import killed midway completes when run again, with every message once', { timeout: 300_000 }, async (t) => {
  const { storage } = seededStorage(t)
  const folder = writeExportFolder(join(tempStorage(t), 'export'), busyExport(60, 400))
  const expected = 60 * 400
  const child = spawn(process.execPath, ['--import', 'tsx', join('server', 'admin', 'import-slack.ts'), '--from', folder], {
    cwd: ROOT, env: { ...process.env, CAMPFIRE_STORAGE_PATH: storage }, stdio: 'ignore',
  })
  const imported = () => {
    const db = database(storage)
    try {
      return db.prepare("SELECT count(*) FROM slack_import_records WHERE kind = 'message'").pluck().get() as number
    } catch {
      return 0
    } finally {
      db.close()
    }
  }
  const deadline = Date.now() + 120_000
  while (imported() < 2_000 && child.exitCode === null && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
  child.kill('SIGKILL')
  await new Promise((resolve) => child.once('close', resolve))
  const partial = imported()
  assert.ok(partial > 0 && partial < expected, `killed midway (${partial} of ${expected} imported)`)

  const again = await importSlack(storage, '--from', folder)
  assert.equal(again.code, 0, again.stderr)
  const db = database(storage)
  t.after(() => db.close())
  assert.equal(db.prepare("SELECT count(*) FROM messages m JOIN rooms r ON r.id = m.room_id WHERE r.name = 'busy'").pluck().get(), expected)
  assert.equal(imported(), expected)
  assert.equal(db.prepare("SELECT count(*) FROM (SELECT 1 FROM messages m JOIN rooms r ON r.id = m.room_id WHERE r.name = 'busy' GROUP BY m.created_at HAVING count(*) > 1)").pluck().get(), 0, 'no message twice')
  assert.match(again.stdout, new RegExp(`messages already imported\\s+${partial}\\b`))
})

test('a running server shows the imported history after a refresh, and the new rooms in its sidebar', { timeout: 180_000 }, async (t) => {
  const { storage, labels } = seededStorage(t)
  const server = await startServer({ CAMPFIRE_STORAGE_PATH: storage, DISABLE_SSL: 'true' })
  t.after(() => stopServer(server, 'SIGKILL'))
  const jar = new CookieJar()
  assert.equal((await request(server.baseUrl, jar, '/session', formPost({ email_address: labels.emails.jz!, password: DEFAULT_PASSWORD }))).status, 302)

  const files: ExportFiles = await sampleExport()
  const folder = join(tempStorage(t), 'export')
  const first = await importSlack(storage, '--from', writeExportFolder(folder, files))
  assert.equal(first.code, 0, first.stderr)
  const db = database(storage)
  t.after(() => db.close())
  const general = db.prepare("SELECT id FROM rooms WHERE name = 'general'").pluck().get() as number
  const page = async () => (await request(server.baseUrl, jar, `/rooms/${general}`)).text()
  const before = await page()
  assert.match(before, /Deploy plan for Friday/)
  assert.match(await (await request(server.baseUrl, jar, '/users/me/sidebar')).text(), /secret-plans/, 'the sidebar lists the new closed room')

  writeExportFolder(folder, new Map([[`general/2024-01-17.json`, JSON.stringify([{ type: 'message', user: TEAM.ada, ts: tsAt('2024-01-17T10:00:00Z', 5), text: 'Imported while the page was open' }])]]))
  const second = await importSlack(storage, '--from', folder)
  assert.equal(second.code, 0, second.stderr)
  assert.match(second.stdout, /messages imported\s+1\b/)
  assert.match(await page(), /Imported while the page was open/, 'the cached room page shows the new history')
})

test('import:slack answers --help without reading or writing anything, and needs --from', async (t) => {
  const storage = join(tempStorage(t), 'storage')
  for (const help of ['--help', '-h']) {
    const result = await importSlack(storage, help, '--no-such-option')
    assert.equal(result.code, 0, result.stderr)
    assert.match(result.stdout, /^Usage: npm run import:slack -- \[options\]\n {7}node dist\/admin\/import-slack\.js/)
    assert.match(result.stdout, /--dry-run/)
    assert.ok(!existsSync(storage))
  }
  const missing = await importSlack(storage)
  assert.equal(missing.code, 1)
  assert.match(missing.stderr, /--from EXPORT is required/)
  assert.ok(!existsSync(storage))
})
