// `npm run reset-password EMAIL`: gives a person who forgot their password a new one, made here
// and printed, or read from standard input. The digest is the server's own (bcrypt, cost 12, as
// has_secure_password makes it), so sign-in takes it at once; the server need not be stopped.
// The person stays signed in where they are, as after changing the password on their profile
// (upstream does the same); --sign-out ends every session they have, for a password that leaked.
import { existsSync, fstatSync, readFileSync } from 'node:fs'
import { alphanumeric } from '../lib/tokens.ts'
import { openConnection } from '../models/database.ts'
import { sessions } from '../models/session.ts'
import { profiles } from '../models/user/profile.ts'
import { users } from '../models/user.ts'
import hashPassword from '../workers/password.ts'
import { fail, readCommandLine, STORAGE_NOTES, scriptStorage } from './support/command-line.ts'

const NAME = 'reset-password'
// What the sign-up and profile forms take.
const LONGEST = 1024

const { values, positionals } = readCommandLine({
  name: NAME,
  arguments: 'EMAIL',
  positionals: { min: 1, max: 1 },
  summary: [
    'Sets a new password for the active person who signs in with EMAIL. Without --stdin (and with',
    'nothing piped in) it makes one, sets it and prints it; with --stdin, or when a password is',
    'piped in, it sets the first line of standard input. Other sessions stay signed in unless',
    '--sign-out is given.',
  ].join('\n'),
  options: {
    stdin: { type: 'boolean', description: 'read the new password from standard input (the first line)' },
    'sign-out': { type: 'boolean', description: 'also end every session the person has, on every device' },
  },
  notes: STORAGE_NOTES + '\nExample: printf %s "$NEW_PASSWORD" | npm run reset-password -- david@example.com --stdin',
})

const email = positionals[0]!
const location = scriptStorage(NAME)
if (!existsSync(location.databasePath)) fail(NAME, `there is no database at ${location.databasePath} (set CAMPFIRE_STORAGE_PATH and RAILS_ENV as for the server)`)

const given = values.stdin || stdinIsPiped() ? readPassword() : null
const password = given ?? [alphanumeric(4), alphanumeric(4), alphanumeric(4), alphanumeric(4)].join('-')

// Closed before any exit, so a stopped server's database is left without -wal and -shm files.
const db = openConnection(location.databasePath)
try {
  const person = users(db).findActiveByEmail(email)
  if (!person) {
    db.close()
    fail(NAME, `no active person signs in with ${email} (deactivated and banned people and bots cannot sign in); nothing was changed`)
  }
  const digest = (await hashPassword({ op: 'hash', password })) as string
  const ended = db.transaction(() => {
    profiles(db).update(person.id, { passwordDigest: digest })
    return values['sign-out'] ? sessions(db).endAllOf(person.id) : 0
  }).immediate()
  const signedOut = values['sign-out'] ? `; ended ${ended} session${ended === 1 ? '' : 's'}` : ''
  if (given === null) {
    process.stderr.write(`New password for ${person.name} <${person.email_address}>${signedOut}:\n`)
    process.stdout.write(password + '\n')
  } else {
    process.stderr.write(`Set the password from standard input for ${person.name} <${person.email_address}>${signedOut}\n`)
  }
} finally {
  if (db.open) db.close()
}

// A pipe, a socket (a parent process's pipe) or a file: not a terminal, and not /dev/null as
// under cron or `docker exec` without -i.
function stdinIsPiped(): boolean {
  try {
    const stat = fstatSync(0)
    return stat.isFIFO() || stat.isSocket() || stat.isFile()
  } catch {
    return false
  }
}

function readPassword(): string {
  const text = readFileSync(0, 'utf8')
  const line = text.split(/\r?\n/)[0] ?? ''
  if (line === '') fail(NAME, 'the password read from standard input is empty; nothing was changed')
  if (line.length > LONGEST) fail(NAME, `the password read from standard input is longer than ${LONGEST} characters; nothing was changed`)
  return line
}
