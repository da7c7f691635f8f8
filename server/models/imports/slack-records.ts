import type { Connection } from '../database.ts'
import { dbTime } from '../../lib/time.ts'
import { normalizeEmail, ROLES, STATUSES } from '../user.ts'

export type ImportedKind = 'user' | 'room' | 'message'

export interface ImportedPerson {
  name: string
  emailAddress: string | null
  bio: string | null
  bot: boolean
  deactivated: boolean
}

// What a Slack import brought in (migrations/012): each Slack key with the row it became, and
// the writes only an import makes — people with no password (they sign in after a join link,
// a password reset or single sign-on) and bots with no key.
export function slackRecords(db: Connection) {
  const find = db.prepare<[ImportedKind, string], number>('SELECT record_id FROM slack_import_records WHERE kind = ? AND slack_key = ?').pluck()
  const insert = db.prepare('INSERT INTO slack_import_records (kind, slack_key, record_id, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING')
  const byEmail = db.prepare<[string], number>('SELECT id FROM users WHERE email_address = ? COLLATE NOCASE ORDER BY status, id LIMIT 1').pluck()
  const insertPerson = db.prepare(
    'INSERT INTO users (name, email_address, bio, role, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  )
  const roomNames = db.prepare<[], string>("SELECT name FROM rooms WHERE type != 'Rooms::Direct' AND name IS NOT NULL").pluck()
  const roomExists = db.prepare<[number], number>('SELECT 1 FROM rooms WHERE id = ?').pluck()
  const messageStart = db.prepare<[number], string>('SELECT body FROM message_search_index WHERE rowid = ?').pluck()

  return {
    find: (kind: ImportedKind, key: string): number | undefined => find.get(kind, key),
    record: (kind: ImportedKind, key: string, recordId: number): void => void insert.run(kind, key, recordId, dbTime()),
    personByEmail: (email: string): number | undefined => byEmail.get(normalizeEmail(email)),
    // Every shared room's name, read once by an import to name the rooms it makes.
    roomNames: (): string[] => roomNames.all(),
    roomExists: (id: number): boolean => roomExists.get(id) !== undefined,
    // A message's text as search holds it: what a thread reply quotes of its parent.
    searchText: (messageId: number): string | undefined => messageStart.get(messageId),

    createPerson(person: ImportedPerson): number {
      const now = dbTime()
      const role = person.bot ? ROLES.bot : ROLES.member
      const status = person.deactivated ? STATUSES.deactivated : STATUSES.active
      const email = person.emailAddress === null ? null : normalizeEmail(person.emailAddress)
      return Number(insertPerson.run(person.name, email, person.bio, role, status, now, now).lastInsertRowid)
    },
  }
}
