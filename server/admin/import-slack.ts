// `npm run import:slack -- --from EXPORT`: brings a Slack workspace export (its zip, or the folder
// it unpacks to) into this installation: people, channels as rooms, DMs as Pings, messages with
// their times, reactions as boosts, files as attachments. It can run while the server is up.
// Running it again adds only what is new; --dry-run reads everything and writes nothing.
import { existsSync } from 'node:fs'
import { keepGeneratedSecret } from '../config.ts'
import { RailsSigning } from '../lib/rails/signing.ts'
import { migrate, openConnection, readMigrations } from '../models/database.ts'
import { projectPath } from '../lib/paths.ts'
import { videoAttachments } from '../plugins/video.ts'
import { NotAnExport } from './slack/export-index.ts'
import { exportRoot, openExport, UnreadableExport, UnsafeExport } from './slack/export-source.ts'
import { importSlack } from './slack/import.ts'
import { progressOn } from './slack/progress.ts'
import { ImportReport } from './slack/report.ts'
import { fail, readCommandLine, STORAGE_NOTES, scriptConfig, scriptStorage } from './support/command-line.ts'

const NAME = 'import:slack'

const { values } = readCommandLine({
  name: NAME,
  file: 'import-slack',
  summary: [
    'Imports a Slack workspace export (the zip Slack gives, or its folder): users.json, channels.json,',
    'groups.json, dms.json, mpims.json and a folder of daily JSON files per conversation. People are',
    'matched by email or created without a password; public channels become open rooms, private ones',
    'closed rooms, DMs and group DMs Pings. It can run while the server is up, and again later: each',
    'message is keyed by its conversation and ts, so a second run (or one after an interruption) adds',
    'only what is new. The summary table goes to standard output, progress to standard error.',
  ].join('\n'),
  options: {
    from: { type: 'string', value: 'EXPORT', description: 'the export: a .zip file or the folder it unpacks to (required)' },
    'dry-run': { type: 'boolean', description: 'read everything and print the report; write nothing' },
    'deactivate-missing': { type: 'boolean', description: 'create the people not found by email deactivated, not as members' },
  },
  notes: STORAGE_NOTES + '\nExample: npm run import:slack -- --from ~/Downloads/acme-slack-export.zip --dry-run',
})

if (!values.from) fail(NAME, '--from EXPORT is required: the Slack export zip or its folder')
const location = scriptStorage(NAME)
if (!existsSync(location.databasePath)) fail(NAME, `there is no database at ${location.databasePath}: start the server once first (it sets up the account), with the same CAMPFIRE_STORAGE_PATH and RAILS_ENV`)

let source
try {
  source = await openExport(values.from)
} catch (error) {
  if (error instanceof UnsafeExport || error instanceof UnreadableExport) fail(NAME, `${error.message}; nothing was imported`)
  throw error
}

const config = scriptConfig(NAME)
// What is signed with it (avatars' links) must verify once the server starts on this folder.
if (!values['dry-run']) keepGeneratedSecret(config)
const log = { error: (details: object, message: string) => void process.stderr.write(`${message} ${JSON.stringify(details)}\n`), warn: (details: object, message: string) => void process.stderr.write(`${message} ${JSON.stringify(details)}\n`) }
const video = videoAttachments(config, log)
const report = new ImportReport()
const dryRun = values['dry-run']
// A real import upgrades the database first, as the server would; a dry run only reads it.
const writeDb = dryRun ? null : openConnection(location.databasePath)
if (writeDb) migrate(writeDb, projectPath('migrations'))
const reader = openConnection(location.databasePath, { readonly: true })
if (dryRun && (reader.pragma('user_version', { simple: true }) as number) < Math.max(...readMigrations(projectPath('migrations')).map((m) => m.version))) {
  reader.close()
  fail(NAME, 'the database has not been upgraded to this version yet: start the server once (or run the import without --dry-run, which upgrades it)')
}
try {
  await importSlack(
    {
      source,
      root: exportRoot(source),
      report,
      dryRun,
      deactivateMissing: values['deactivate-missing'],
      signing: new RailsSigning(config.secretKeyBase),
      filesPath: config.filesPath,
      maxUploadBytes: config.maxUploadBytes,
      services: { log, video },
      progress: progressOn(process.stderr),
    },
    { reader, writer: writeDb },
  )
} catch (error) {
  if (error instanceof NotAnExport) fail(NAME, `${error.message}; nothing was imported`)
  // Found while reading on: what was imported before it stays, and a run on a sound export completes it.
  if (error instanceof UnsafeExport || error instanceof UnreadableExport) fail(NAME, `${error.message}; the import stopped there`)
  throw error
} finally {
  source.close()
  await video.close()
  reader.close()
  writeDb?.close()
}
process.stdout.write(report.summary(dryRun))
