// `npm run doctor`: lists what the storage folder holds that nothing uses: blobs no record is
// attached to (with their variants and previews) and files no blob names (or uploads a crash
// left in files/tmp). With --fix it removes them: the blobs a batch per transaction, then their
// files, then the stray files. The server need not be stopped: a file is only a stray once it
// has been left alone for an hour (an upload's file is written before its row commits) and no
// row names it on a second look just before it goes; only names the storage layout writes are
// ever deleted (lib/stored-files.ts).
import { existsSync } from 'node:fs'
import { removeBlobFiles } from '../lib/files.ts'
import { removeStrayFiles, strayFiles } from '../lib/stored-files.ts'
import { blobs } from '../models/blob.ts'
import { openConnection } from '../models/database.ts'
import { fail, readCommandLine, STORAGE_NOTES, scriptStorage } from './support/command-line.ts'

const NAME = 'doctor'

const { values } = readCommandLine({
  name: NAME,
  arguments: '',
  positionals: { min: 0, max: 0 },
  summary: 'Lists orphaned blobs (rows no record is attached to) and stray files (files no blob names, untouched for an hour). With --fix, removes them; safe while the server runs.',
  options: {
    fix: { type: 'boolean', description: 'remove the orphaned blobs and stray files it lists' },
  },
  notes: STORAGE_NOTES + '\nExample: npm run doctor -- --fix',
})

const location = scriptStorage(NAME)
if (!existsSync(location.databasePath)) fail(NAME, `there is no database at ${location.databasePath} (set CAMPFIRE_STORAGE_PATH and RAILS_ENV as for the server)`)
const db = openConnection(location.databasePath)
const files = blobs(db)

const unattached = files.countUnattached()
const strays = []
for await (const file of strayFiles(location.filesPath, (key) => files.keyExists(key))) strays.push(file)
console.log(`${unattached} orphaned blob${unattached === 1 ? '' : 's'} (no record attached)`)
console.log(`${strays.length} stray file${strays.length === 1 ? '' : 's'} (no blob row), ${strays.reduce((sum, f) => sum + f.size, 0)} bytes`)
for (const file of strays) console.log(`  ${file.path}`)

if (values.fix) {
  let purged = 0
  for (;;) {
    const batch = db.transaction(() => files.purgeUnattached(50)).immediate()
    await removeBlobFiles(location.filesPath, batch.keys)
    purged += batch.purged
    if (batch.done) break
  }
  const removed = await removeStrayFiles(location.filesPath, strays, (key) => files.keyExists(key))
  console.log(`removed ${purged} orphaned blob${purged === 1 ? '' : 's'} and ${removed.length} stray file${removed.length === 1 ? '' : 's'}`)
} else if (unattached + strays.length > 0) console.log('run `npm run doctor -- --fix` to remove them')
db.close()
