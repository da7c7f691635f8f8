import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { removeStrayFiles, STRAY_GRACE_MS, storedFileOf, strayFiles, type StrayFile } from '../../server/lib/stored-files.ts'
import { generateBlobKey } from '../../server/lib/uploads.ts'

function filesFolder(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'campfire-files-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

function write(path: string, ageMs: number): string {
  mkdirSync(join(path, '..'), { recursive: true })
  writeFileSync(path, 'bytes')
  const at = (Date.now() - ageMs) / 1000
  utimesSync(path, at, at)
  return path
}

const layout = (root: string, key: string) => join(root, key.slice(0, 2), key.slice(2, 4), key)

test('only names the storage layout writes are ours: a blob key in its folders, an upload in tmp/', (t) => {
  const root = filesFolder(t)
  const key = generateBlobKey()
  assert.deepEqual(storedFileOf(root, layout(root, key)), { key, inTmp: false })
  assert.deepEqual(storedFileOf(root, join(root, 'tmp', `${key}.upload`)), { key, inTmp: true })
  for (const path of [join(root, 'README.txt'), join(root, 'zz', 'zz', key), join(root, key.slice(0, 2), key.slice(2, 4), 'notes.txt'), join(root, key.slice(0, 2), key.slice(2, 4), key.toUpperCase()), join(root, 'tmp', 'notes.txt')])
    assert.equal(storedFileOf(root, path), null, path)
})

test('a stray is a file of ours no row names, left alone for longer than the grace period', async (t) => {
  const root = filesFolder(t)
  const named = generateBlobKey()
  const old = write(layout(root, generateBlobKey()), STRAY_GRACE_MS + 60_000)
  write(layout(root, named), STRAY_GRACE_MS + 60_000)
  write(layout(root, generateBlobKey()), 1000)
  const oldUpload = write(join(root, 'tmp', `${generateBlobKey()}.upload`), STRAY_GRACE_MS + 60_000)
  write(join(root, 'tmp', `${generateBlobKey()}.upload`), 1000)
  write(join(root, 'README.txt'), STRAY_GRACE_MS + 60_000)
  const found: StrayFile[] = []
  for await (const stray of strayFiles(root, (key) => key === named)) found.push(stray)
  assert.deepEqual(found.map((stray) => stray.path).sort(), [old, oldUpload].sort())
})

test('a stray is deleted only if it is still one on a second look: a row named since the scan, or a new write, keeps it', async (t) => {
  const root = filesFolder(t)
  const [gone, namedSince, rewritten] = [generateBlobKey(), generateBlobKey(), generateBlobKey()]
  for (const key of [gone, namedSince, rewritten]) write(layout(root, key), STRAY_GRACE_MS + 60_000)
  const rows = new Set<string>()
  const found: StrayFile[] = []
  for await (const stray of strayFiles(root, (key) => rows.has(key))) found.push(stray)
  assert.equal(found.length, 3)

  rows.add(namedSince)
  writeFileSync(layout(root, rewritten), 'written again')
  const removed = await removeStrayFiles(root, found, (key) => rows.has(key))
  assert.deepEqual(removed.map((stray) => stray.key), [gone])
  assert.equal(existsSync(layout(root, gone)), false)
  assert.ok(existsSync(layout(root, namedSince)), 'the database names it now')
  assert.ok(existsSync(layout(root, rewritten)), 'written since the scan')
})
