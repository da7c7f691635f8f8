import { test } from 'node:test'
import assert from 'node:assert/strict'
import { backupsToDelete } from '../../server/backups/retention.ts'

const NOW = new Date('2026-12-10T12:00:00Z')
const name = (day: number) => `campfire-backup-2026-12-${String(day).padStart(2, '0')}T03-00-00Z`
const complete = (day: number) => ({ name: name(day), complete: true })

test('a count keeps the newest complete backups and lets the older ones go', () => {
  const entries = [complete(6), complete(9), complete(7), complete(10), complete(8)]
  assert.deepEqual(backupsToDelete(entries, { count: 3 }, NOW).sort(), [name(6), name(7)])
  assert.deepEqual(backupsToDelete(entries, { count: 5 }, NOW), [])
})

test('an age lets go of backups older than it, but never the newest one', () => {
  const entries = [complete(1), complete(5), complete(9), complete(10)]
  assert.deepEqual(backupsToDelete(entries, { ageMs: 3 * 86_400_000 }, NOW).sort(), [name(1), name(5)])
  // The schedule stopped a month ago: the last backup there is stays.
  assert.deepEqual(backupsToDelete([complete(1), complete(2)], { ageMs: 86_400_000 }, NOW), [name(1)])
})

test('an incomplete backup is let go unless it is the one being taken, and counts for nothing', () => {
  const entries = [complete(8), { name: name(9), complete: false }, complete(10), { name: name(11), complete: false }]
  assert.deepEqual(backupsToDelete(entries, { count: 2 }, NOW, name(11)), [name(9)])
  assert.deepEqual(backupsToDelete([{ name: name(9), complete: false }], { count: 2 }, NOW), [name(9)])
})
