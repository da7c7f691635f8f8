import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { openExport, UnsafeExport } from '../../../server/admin/slack/export-source.ts'
import { tempStorage } from '../../helper.ts'
import { writeExportFolder } from '../support/slack-export.ts'

function exportWithSecretBeside(t: { after: (fn: () => void) => void }) {
  const base = tempStorage(t)
  const secret = join(base, 'secret.txt')
  writeFileSync(secret, 'root:x:0:0:not for an export')
  const folder = writeExportFolder(join(base, 'export'), new Map([['users.json', '[]'], ['general/2024-01-15.json', '[]'], ['__uploads/F1/a.txt', 'a file']]))
  return { secret, folder }
}

test('a file of a folder export swapped for a link after the export was read is refused, not followed', async (t) => {
  const { secret, folder } = exportWithSecretBeside(t)
  const source = await openExport(folder)
  rmSync(join(folder, '__uploads', 'F1', 'a.txt'))
  symlinkSync(secret, join(folder, '__uploads', 'F1', 'a.txt'))
  await assert.rejects(source.open('__uploads/F1/a.txt'), (error) => error instanceof UnsafeExport && /became a link/.test(error.message))
  await assert.rejects(source.readText('__uploads/F1/a.txt'), UnsafeExport)
})

test('a folder of a folder export swapped for a link is refused too, since the opened file is not the one listed', async (t) => {
  const { secret, folder } = exportWithSecretBeside(t)
  const source = await openExport(folder)
  const elsewhere = join(folder, '..', 'elsewhere')
  mkdirSync(elsewhere)
  symlinkSync(secret, join(elsewhere, '2024-01-15.json'))
  writeFileSync(join(elsewhere, 'copy.json'), '[]')
  renameSync(join(folder, 'general'), join(folder, '..', 'moved'))
  symlinkSync(elsewhere, join(folder, 'general'))
  await assert.rejects(source.readText('general/2024-01-15.json'), UnsafeExport)
  rmSync(join(elsewhere, '2024-01-15.json'))
  writeFileSync(join(elsewhere, '2024-01-15.json'), '[]')
  await assert.rejects(source.readText('general/2024-01-15.json'), (error) => error instanceof UnsafeExport && /replaced/.test(error.message))
})

test('the files of a folder export are read as they were listed', async (t) => {
  const { folder } = exportWithSecretBeside(t)
  const source = await openExport(folder)
  assert.equal(await source.readText('__uploads/F1/a.txt'), 'a file')
})
