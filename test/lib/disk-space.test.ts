import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, statfsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { DiskSpace, isOutOfSpace, ReserveReached, Throttled } from '../../server/lib/disk-space.ts'

test('a warning is let through once a minute, with how many were held back', () => {
  const throttled = new Throttled(60_000)
  assert.equal(throttled.next(0), 0)
  assert.equal(throttled.next(1_000), null)
  assert.equal(throttled.next(59_999), null)
  assert.equal(throttled.next(60_000), 2)
})

test('out of space is the storage refusing a write, not any failure', () => {
  for (const code of ['ENOSPC', 'EDQUOT', 'EFBIG', 'SQLITE_FULL', 'SQLITE_IOERR_WRITE']) assert.equal(isOutOfSpace(Object.assign(new Error(code), { code })), true, code)
  for (const code of ['EACCES', 'SQLITE_BUSY', 'SQLITE_CONSTRAINT_UNIQUE', undefined]) assert.equal(isOutOfSpace(Object.assign(new Error('x'), { code })), false, String(code))
  // A real one: SQLite's own error for a database that may not grow (max_page_count).
  const dir = mkdtempSync(join(tmpdir(), 'campfire-full-'))
  const db = new BetterSqlite3(join(dir, 'small.sqlite3'))
  try {
    db.exec('CREATE TABLE t (x)')
    db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true })}`)
    assert.throws(() => db.prepare('INSERT INTO t VALUES (randomblob(100000))').run(), (error: unknown) => isOutOfSpace(error))
  } finally {
    db.close()
    rmSync(dir, { recursive: true, force: true })
  }
})

test('the level follows a real statfs against the reserve, and a failed write counts as full until the next sample', () => {
  const stats = statfsSync(tmpdir())
  const free = stats.bavail * stats.bsize
  const plenty = new DiskSpace(tmpdir(), { minFreeBytes: 0 })
  const low = new DiskSpace(tmpdir(), { minFreeBytes: free * 2 })
  const full = new DiskSpace(tmpdir(), { minFreeBytes: free * 8 })
  try {
    assert.deepEqual([plenty.level, low.level, full.level], ['ok', 'low', 'full'])
    assert.equal(plenty.refusesUploads(free * 2), true, 'an upload larger than the free space')
    assert.equal(plenty.refusesUploads(1024), false)
    plenty.sawOutOfSpace()
    assert.equal(plenty.refusesWrites(), true)
    plenty.sample()
    assert.equal(plenty.refusesWrites(), false)
  } finally {
    for (const disk of [plenty, low, full]) disk.close()
  }
})

test('uploads in flight count against the reserve: what one declares at once, what streams beyond it as it comes', () => {
  const MB = 1024 * 1024
  const stats = statfsSync(tmpdir())
  // 10 MB above the reserve, as the one statfs taken (no other sample during the test) saw it.
  const disk = new DiskSpace(tmpdir(), { minFreeBytes: stats.bavail * stats.bsize - 10 * MB, sampleMs: 3_600_000 })
  try {
    const declared = disk.claim(6 * MB)
    assert.ok(declared, 'six of the ten')
    assert.equal(disk.claim(6 * MB), null, 'a second six would cross the reserve')
    declared.wrote(6 * MB)
    const chunked = disk.claim(0)
    assert.ok(chunked, 'a chunked upload declares nothing, and is let in while room is left')
    chunked.wrote(3 * MB)
    assert.throws(() => chunked.wrote(2 * MB), ReserveReached, 'the chunk that would cross the reserve is refused')
    assert.equal(disk.claim(0), null, 'and nothing more is let in')
    assert.equal(disk.refusesTextPosts(), false, 'text posts go on within the reserve')
    const unfinished = new DiskSpace(tmpdir(), { minFreeBytes: stats.bavail * stats.bsize - 10 * MB, sampleMs: 3_600_000 })
    try {
      const gaveUp = unfinished.claim(8 * MB)!
      gaveUp.wrote(MB)
      gaveUp.release()
      assert.ok(unfinished.claim(8 * MB), 'an upload that ended early gives back what it did not send')
    } finally {
      unfinished.close()
    }
  } finally {
    disk.close()
  }
})
