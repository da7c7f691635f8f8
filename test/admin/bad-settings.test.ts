import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runAdmin } from './support/admin-script.ts'

// Every script that finds the storage folder as the server does refuses a setting the server
// would refuse, in one line and before it reads or writes anything.
const SCRIPTS: [string, string[]][] = [
  ['backup', []],
  ['doctor', []],
  ['finish-restore', []],
  ['prepare-backup', []],
  ['reset-password', ['david@37signals.com']],
  ['restore', ['--from-replica', 'file:///nonexistent-replica']],
  ['import-slack', ['--from', 'export.zip']],
]

test('a RAILS_ENV that is a path stops each storage script with one line naming it, and nothing is written', async (t) => {
  const storage = mkdtempSync(join(tmpdir(), 'campfire-bad-settings-'))
  t.after(() => rmSync(storage, { recursive: true, force: true }))
  const results = await Promise.all(SCRIPTS.map(([name, args]) => runAdmin(name, args, { CAMPFIRE_STORAGE_PATH: storage, RAILS_ENV: '../../escape' })))
  SCRIPTS.forEach(([name], i) => {
    const { code, stderr } = results[i]!
    assert.equal(code, 1, `${name}: ${stderr}`)
    const lines = stderr.trim().split('\n')
    assert.equal(lines.length, 1, `${name} said more than one line: ${stderr}`)
    assert.match(lines[0]!, new RegExp(`^${name === 'import-slack' ? 'import:slack' : name}: RAILS_ENV must be`))
    assert.doesNotMatch(stderr, /\bat .+:\d+:\d+/, `${name} printed a stack`)
  })
  assert.deepEqual(readdirSync(storage), [], 'nothing was written into the storage folder')
  assert.equal(existsSync(join(storage, '..', 'escape.sqlite3')), false)
})
