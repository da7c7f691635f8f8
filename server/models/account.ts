import type { Connection } from './database.ts'
import { dbTime } from '../lib/time.ts'
import { joinCode } from '../lib/tokens.ts'

export interface AccountRow {
  id: number
  name: string
  join_code: string
  custom_styles: string | null
  settings: string | null
  updated_at: string
  // 1 when a logo is attached (body class account-has-logo, the nav's logo).
  has_logo: number
}

export interface AccountSettings {
  restrict_room_creation_to_administrators: boolean
}

export function accounts(db: Connection) {
  const first = db.prepare<[], AccountRow>(
    `SELECT id, name, join_code, custom_styles, settings, updated_at,
       EXISTS (SELECT 1 FROM active_storage_attachments WHERE record_type = 'Account' AND name = 'logo' AND record_id = accounts.id) AS has_logo
     FROM accounts ORDER BY id LIMIT 1`,
  )
  const insert = db.prepare('INSERT INTO accounts (name, join_code, settings, singleton_guard, created_at, updated_at) VALUES (?, ?, ?, 0, ?, ?)')
  const rename = db.prepare('UPDATE accounts SET name = ?, updated_at = ? WHERE id = ?')
  const writeSettings = db.prepare('UPDATE accounts SET settings = ?, updated_at = ? WHERE id = ?')
  const writeCustomStyles = db.prepare('UPDATE accounts SET custom_styles = ?, updated_at = ? WHERE id = ?')
  const touch = db.prepare('UPDATE accounts SET updated_at = ? WHERE id = ?')

  return {
    first: (): AccountRow | undefined => first.get(),

    create(name: string): number {
      const now = dbTime()
      const settings = JSON.stringify({ restrict_room_creation_to_administrators: false })
      return Number(insert.run(name, joinCode(), settings, now, now).lastInsertRowid)
    },

    rename(accountId: number, name: string): void {
      rename.run(name, dbTime(), accountId)
    },

    // Merged into what is stored, so keys another version wrote are kept.
    updateSettings(account: AccountRow, changes: Partial<AccountSettings>): void {
      writeSettings.run(JSON.stringify({ ...safeJson(account.settings), ...changes }), dbTime(), account.id)
    },

    updateCustomStyles(accountId: number, css: string): void {
      writeCustomStyles.run(css, dbTime(), accountId)
    },

    // Attaching or removing the logo touches the account, as Active Storage does: the logo's ?v=
    // and every cached page keyed on the account move with it.
    touch(accountId: number): void {
      touch.run(dbTime(), accountId)
    },

    settings(account: AccountRow): AccountSettings {
      const parsed = safeJson(account.settings)
      return { restrict_room_creation_to_administrators: parsed?.restrict_room_creation_to_administrators === true }
    },
  }
}

function safeJson(text: string | null): Record<string, unknown> | null {
  if (!text) return null
  try {
    const value = JSON.parse(text)
    return value && typeof value === 'object' ? value : null
  } catch {
    return null
  }
}
