import type { Connection } from './database.ts'
import { dbTime } from '../lib/time.ts'

export const ROLES = { member: 0, administrator: 1, bot: 2 } as const
export const STATUSES = { active: 0, deactivated: 1, banned: 2 } as const

export interface UserRow {
  id: number
  name: string
  email_address: string | null
  password_digest: string | null
  role: number
  status: number
  bio: string | null
  updated_at: string
}

export interface NewUser {
  name: string
  emailAddress: string
  passwordDigest: string | null
  role?: number
}

const COLUMN_NAMES = ['id', 'name', 'email_address', 'password_digest', 'role', 'status', 'bio', 'updated_at'] as const
const COLUMNS = COLUMN_NAMES.join(', ')

// A UserRow's columns as another model's query reads them, each named `<prefix><column>`.
export function userColumns(table: string, prefix: string): string {
  return COLUMN_NAMES.map((name) => `${table}.${name} AS ${prefix}${name}`).join(', ')
}

// The UserRow in a row read with userColumns(…, prefix).
export function userFrom(row: Record<string, unknown>, prefix: string): UserRow {
  const user: Record<string, unknown> = {}
  for (const name of COLUMN_NAMES) user[name] = row[prefix + name]
  return user as unknown as UserRow
}

// Addresses are stored and compared with their ASCII letters lowercased and nothing else:
// Unicode lowercasing would turn the Kelvin sign into a k (user/email-standing.ts).
export function normalizeEmail(email: string): string {
  return email.trim().replace(/[A-Z]+/g, (letters) => letters.toLowerCase())
}

export function isAdministrator(user: Pick<UserRow, 'role'>): boolean {
  return user.role === ROLES.administrator
}

export function users(db: Connection) {
  const find = db.prepare<[number], UserRow>(`SELECT ${COLUMNS} FROM users WHERE id = ?`)
  const findActiveByEmail = db.prepare<[string], UserRow>(
    `SELECT ${COLUMNS} FROM users WHERE email_address = ? COLLATE NOCASE AND status = 0 AND role != 2 LIMIT 1`,
  )
  const anyExists = db.prepare('SELECT 1 FROM users LIMIT 1').pluck()
  const activePeople = db.prepare<[], number>(`SELECT COUNT(*) FROM users WHERE status = 0 AND role != ${ROLES.bot}`).pluck()
  const firstAdministrator = db.prepare<[], UserRow>(`SELECT ${COLUMNS} FROM users WHERE role = 1 AND status = 0 ORDER BY id LIMIT 1`)
  const insert = db.prepare(
    'INSERT INTO users (name, email_address, password_digest, role, status, created_at, updated_at) VALUES (?, ?, ?, ?, 0, ?, ?)',
  )

  const people = db.prepare<[string], { id: number; name: string; bio: string | null; role: number; updated_at: string }>(
    'SELECT id, name, bio, role, updated_at FROM users WHERE id IN (SELECT value FROM json_each(?))',
  )

  return {
    people: (ids: number[]) => people.all(JSON.stringify(ids)),
    find: (id: number): UserRow | undefined => find.get(id),
    findActiveByEmail: (email: string): UserRow | undefined => findActiveByEmail.get(normalizeEmail(email)),
    anyExist: (): boolean => anyExists.get() !== undefined,
    // Active people, bots left out.
    activeCount: (): number => activePeople.get() ?? 0,
    firstAdministrator: (): UserRow | undefined => firstAdministrator.get(),

    create(user: NewUser): number {
      const now = dbTime()
      const role = user.role ?? ROLES.member
      return Number(insert.run(user.name.trim(), normalizeEmail(user.emailAddress), user.passwordDigest, role, now, now).lastInsertRowid)
    },
  }
}

// An email address someone else already signs in with.
export class EmailTaken extends Error {}
