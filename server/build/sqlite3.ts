import { ensureDebianPackage } from './debian-package.ts'

// The container contract test reads the live database the way the benchmark harness does, with
// Debian's sqlite3 command from outside the server's processes; pretest installs it where it can.
export const SQLITE3_PATH = 'sqlite3'

export function ensureSqlite3(): boolean {
  return ensureDebianPackage({ name: 'sqlite3', program: SQLITE3_PATH, packages: ['sqlite3'], neededBy: 'the container contract test' })
}

// Run as a command (pretest); the path check keeps it quiet when imported.
if (/server[\\/]build[\\/]sqlite3\.ts$/.test(process.argv[1] ?? '')) ensureSqlite3()
