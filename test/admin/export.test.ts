import { test } from 'node:test'
import assert from 'node:assert/strict'
import BetterSqlite3 from 'better-sqlite3'
import { existsSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tempStorage } from '../helper.ts'
import { readZip, jsonEntry } from '../support/zip.ts'
import { assertHelpWritesNothing, runAdmin } from './support/admin-script.ts'
import { seededStorage } from './support/seeded-storage.ts'

interface RoomFile {
  room: { id: number; title: string }
  messages: { id: number; author: { id: number; name: string }; text: string; html: string; created_at: string; boosts: unknown[]; attachments: unknown[] }[]
}

function counts(storage: string) {
  const db = new BetterSqlite3(join(storage, 'db', 'production.sqlite3'), { readonly: true })
  try {
    const perRoom = db.prepare('SELECT room_id, COUNT(*) AS n FROM messages GROUP BY room_id').all() as { room_id: number; n: number }[]
    return {
      people: db.prepare('SELECT COUNT(*) FROM users').pluck().get() as number,
      rooms: db.prepare('SELECT id FROM rooms ORDER BY id').pluck().all() as number[],
      perRoom: new Map(perRoom.map((r) => [r.room_id, r.n])),
      boosts: db.prepare('SELECT COUNT(*) FROM boosts').pluck().get() as number,
    }
  } finally {
    db.close()
  }
}

test('export --help answers without reading or writing anything', async (t) => {
  await assertHelpWritesNothing('export', join(tempStorage(t), 'storage'))
})

test('export writes the whole account as a zip another tool reads: people, rooms, every message of every room, and a page per room', { timeout: 120_000 }, async (t) => {
  const { storage } = seededStorage(t)
  const out = join(tempStorage(t), 'account.zip')
  const result = await runAdmin('export', ['--out', out], { CAMPFIRE_STORAGE_PATH: storage })
  assert.equal(result.code, 0, result.stderr)
  assert.match(result.stdout, /^export: wrote .*account\.zip .* \d+ rooms, \d+ messages, 0 attachments\n$/)

  const expected = counts(storage)
  const zip = await readZip(out)
  assert.equal(jsonEntry<unknown[]>(zip, 'people.json').length, expected.people)
  const rooms = jsonEntry<{ id: number; messages: string; html: string }[]>(zip, 'rooms.json')
  assert.deepEqual(rooms.map((r) => r.id), expected.rooms)
  let boosts = 0
  for (const room of rooms) {
    const file = jsonEntry<RoomFile>(zip, room.messages)
    assert.equal(file.messages.length, expected.perRoom.get(room.id) ?? 0, `room ${room.id} has all its messages`)
    for (const message of file.messages) {
      assert.equal(typeof message.author.name, 'string')
      assert.match(message.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
      assert.equal(typeof message.html, 'string')
      assert.equal(typeof message.text, 'string')
      boosts += message.boosts.length
    }
    const page = zip.get(room.html)!.toString('utf8')
    assert.match(page, /^<!DOCTYPE html>/)
    assert.match(page, /Content-Security-Policy" content="default-src 'none'/)
    assert.equal((page.match(/<article /g) ?? []).length, file.messages.length)
    assert.doesNotMatch(page, /<(script|link|iframe)\b|\b(src|href)="(https?:)?\/\//i, 'the page asks for nothing from elsewhere')
  }
  assert.equal(boosts, expected.boosts, 'every boost is in some message')
})

test('export --room writes that room alone', { timeout: 120_000 }, async (t) => {
  const { storage, labels } = seededStorage(t)
  const roomId = Object.values(labels.rooms)[0]!
  const out = join(tempStorage(t), 'room.zip')
  const result = await runAdmin('export', ['--out', out, '--room', String(roomId)], { CAMPFIRE_STORAGE_PATH: storage })
  assert.equal(result.code, 0, result.stderr)
  const zip = await readZip(out)
  assert.deepEqual(jsonEntry<{ id: number }[]>(zip, 'rooms.json').map((r) => r.id), [roomId])
  assert.deepEqual([...zip.keys()].filter((path) => path.startsWith('rooms/')).sort(), [`rooms/${roomId}.html`, `rooms/${roomId}.json`])
})

test('export refuses an unknown room, a room that is not a number, an existing file and a missing --out, writing nothing', { timeout: 120_000 }, async (t) => {
  const { storage } = seededStorage(t)
  const folder = tempStorage(t)
  const env = { CAMPFIRE_STORAGE_PATH: storage }
  const out = join(folder, 'out.zip')

  const unknown = await runAdmin('export', ['--out', out, '--room', '999999'], env)
  assert.equal(unknown.code, 1)
  assert.equal(unknown.stderr, 'export: there is no room 999999; nothing was written\n')
  const word = await runAdmin('export', ['--out', out, '--room', 'hq'], env)
  assert.equal(word.code, 2)
  assert.match(word.stderr, /^export: --room takes a room id \(a number\), not 'hq'\n/)
  const missing = await runAdmin('export', [], env)
  assert.equal(missing.code, 2)
  assert.match(missing.stderr, /^export: needs --out FILE\n/)
  assert.deepEqual(readdirSync(folder), [])

  writeFileSync(out, 'mine')
  const existing = await runAdmin('export', ['--out', out], env)
  assert.equal(existing.code, 1)
  assert.match(existing.stderr, /already exists/)
  assert.ok(existsSync(out))
  assert.deepEqual(readdirSync(folder), ['out.zip'])
})
