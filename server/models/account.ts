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
}

export interface AccountSettings {
  restrict_room_creation_to_administrators: boolean
}

export function accounts(db: Connection) {
  const first = db.prepare<[], AccountRow>('SELECT id, name, join_code, custom_styles, settings, updated_at FROM accounts ORDER BY id LIMIT 1')
  const insert = db.prepare('INSERT INTO accounts (name, join_code, settings, singleton_guard, created_at, updated_at) VALUES (?, ?, ?, 0, ?, ?)')

  return {
    first: (): AccountRow | undefined => first.get(),

    create(name: string): number {
      const now = dbTime()
      const settings = JSON.stringify({ restrict_room_creation_to_administrators: false })
      return Number(insert.run(name, joinCode(), settings, now, now).lastInsertRowid)
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
