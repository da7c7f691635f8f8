import { createInterface } from 'node:readline'
import { migrate, openConnection } from '../../server/models/database.ts'

// A process that opens the database file and migrates it when told "go" on stdin (after saying
// "ready"), then prints the migrations it applied: several of them, told at once, are worker
// processes booting together.
const [path, migrationsDir] = process.argv.slice(2) as [string, string]
const db = openConnection(path)
process.stdout.write('ready\n')
createInterface({ input: process.stdin }).once('line', () => {
  process.stdout.write(`${JSON.stringify(migrate(db, migrationsDir))}\n`)
  db.close()
  process.exit(0)
})
