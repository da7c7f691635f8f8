// `npm run export -- --out FILE [--room ID]`: the whole account, or one room, as a zip another
// tool can read (people.json, rooms.json, a JSON file and an offline HTML page per room, and the
// attached files). It reads the live database in one read transaction, so the server may keep
// running; the zip is written under a hidden working name and renamed to FILE once complete.
import { createWriteStream, existsSync, renameSync, rmSync, statSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { exportRows, openForExport, type ExportScope } from '../models/export/rows.ts'
import { writeArchive } from '../rendering/export/archive.ts'
import { fail, readCommandLine, STORAGE_NOTES, scriptStorage, usageError } from './support/command-line.ts'

const NAME = 'export'

const { values } = readCommandLine({
  name: NAME,
  summary: [
    'Writes the account (or one room with --room) to FILE as a zip: people.json, rooms.json, and per room',
    'rooms/<id>.json (messages with author, time, rich text as HTML and plain text, boosts, attachments)',
    'and rooms/<id>.html (a page that opens offline from the unpacked zip), and the attached files under',
    'attachments/. Safe while the server runs: everything is read in one read transaction.',
  ].join('\n'),
  options: {
    out: { type: 'string', value: 'FILE', description: 'the zip to write (required; refused if it exists)' },
    room: { type: 'string', value: 'ID', description: 'export only this room (its id, as in /rooms/ID)' },
  },
  notes: STORAGE_NOTES + '\nExample: npm run export -- --out campfire-export.zip',
})

if (!values.out) usageError(NAME, 'needs --out FILE')
if (values.room !== undefined && !/^[1-9]\d{0,15}$/.test(values.room)) usageError(NAME, `--room takes a room id (a number), not '${values.room}'`)
const out = resolve(values.out)
if (existsSync(out)) fail(NAME, `${out} already exists; choose another name or remove it first`)
if (!existsSync(dirname(out)) || !statSync(dirname(out)).isDirectory()) fail(NAME, `the folder ${dirname(out)} does not exist`)

const location = scriptStorage(NAME)
if (!existsSync(location.databasePath)) fail(NAME, `there is no database at ${location.databasePath} (set CAMPFIRE_STORAGE_PATH and RAILS_ENV as for the server)`)

const db = openForExport(location.databasePath)
const working = join(dirname(out), `.${basename(out)}.partial`)
const started = performance.now()
const scope: ExportScope = values.room === undefined ? { kind: 'account' } : { kind: 'room', roomId: Number(values.room) }
if (scope.kind === 'room' && !exportRows(db).findRoom(scope.roomId)) {
  db.close()
  fail(NAME, `there is no room ${scope.roomId}; nothing was written`)
}
try {
  const summary = await writeArchive({ db, scope, filesPath: location.filesPath }, createWriteStream(working, { flags: 'wx' }))
  renameSync(working, out)
  const seconds = ((performance.now() - started) / 1000).toFixed(1)
  const missing = summary.missingFiles > 0 ? `, ${summary.missingFiles} attachment files missing on disk (listed in the JSON, not in the zip)` : ''
  console.log(`${NAME}: wrote ${out} (${(statSync(out).size / 1048576).toFixed(1)} MB) in ${seconds} s: ${summary.rooms} rooms, ${summary.messages} messages, ${summary.attachments} attachments${missing}`)
} catch (error) {
  rmSync(working, { force: true })
  fail(NAME, `${(error as Error).message}; nothing was written`)
} finally {
  db.close()
}
