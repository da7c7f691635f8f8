import { randomInt, timingSafeEqual } from 'node:crypto'
import type { Connection } from '../database.ts'
import type { RoomRow } from '../room.ts'
import { dbTime } from '../../lib/time.ts'
import { ROLES, type UserRow } from '../user.ts'

// User::Bot: a bot is a users row with role=bot and a 12-character alphanumeric bot_token; its
// key, "<id>-<token>", is what its API URLs carry. Only active bots are listed or let in.
export const BOT_TOKEN_LENGTH = 12
const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

export interface BotRow extends UserRow {
  bot_token: string | null
}

// SecureRandom.alphanumeric(12).
export function generateBotToken(): string {
  let token = ''
  for (let i = 0; i < BOT_TOKEN_LENGTH; i++) token += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)]
  return token
}

export function botKey(bot: Pick<BotRow, 'id' | 'bot_token'>): string {
  return `${bot.id}-${bot.bot_token ?? ''}`
}

// A key as upstream reads it (stripped, split on "-": the id, then the token), or null when
// it cannot be one.
export function parseBotKey(key: string): { id: number; token: string } | null {
  const [id, token] = key.trim().split('-')
  if (!id || !token || !/^[1-9]\d{0,15}$/.test(id) || token.length > 64) return null
  return { id: Number(id), token }
}

function sameToken(given: string, stored: string | null): boolean {
  if (stored === null || stored === '') return false
  const a = Buffer.from(given)
  const b = Buffer.from(stored)
  // Compared in constant time; a length mismatch still does the work once.
  if (a.length !== b.length) return !timingSafeEqual(b, b)
  return timingSafeEqual(a, b)
}

export function bots(db: Connection) {
  const COLUMNS = 'id, name, email_address, password_digest, role, status, bio, updated_at, bot_token'
  const active = db.prepare<[], BotRow>(`SELECT ${COLUMNS} FROM users WHERE role = 2 AND status = 0 ORDER BY LOWER(name), id`)
  const findActive = db.prepare<[number], BotRow>(`SELECT ${COLUMNS} FROM users WHERE id = ? AND role = 2 AND status = 0`)
  const insert = db.prepare('INSERT INTO users (name, role, status, bot_token, created_at, updated_at) VALUES (?, 2, 0, ?, ?, ?)')
  const rename = db.prepare('UPDATE users SET name = ?, updated_at = ? WHERE id = ? AND role = 2 AND status = 0')
  const retoken = db.prepare('UPDATE users SET bot_token = ?, updated_at = ? WHERE id = ? AND role = 2 AND status = 0')
  const sharedRooms = db.prepare<[string], RoomRow & { bot_id: number }>(
    `SELECT rooms.id, rooms.name, rooms.type, rooms.creator_id, rooms.created_at, rooms.updated_at, memberships.user_id AS bot_id
       FROM memberships JOIN rooms ON rooms.id = memberships.room_id
      WHERE memberships.user_id IN (SELECT value FROM json_each(?)) AND rooms.type != 'Rooms::Direct'
      ORDER BY LOWER(rooms.name), rooms.id`,
  )

  return {
    // User.active_bots.ordered
    active: (): BotRow[] => active.all(),
    findActive: (id: number): BotRow | undefined => findActive.get(id),

    // User.authenticate_bot: the active bot whose id and token the key names.
    authenticate(key: string): BotRow | undefined {
      const parsed = parseBotKey(key)
      const bot = parsed ? findActive.get(parsed.id) : undefined
      return bot && parsed && sameToken(parsed.token, bot.bot_token) && bot.role === ROLES.bot ? bot : undefined
    },

    // The shared rooms (not pings) each bot is in, by name, for its curl lines.
    sharedRoomsOf(botIds: number[]): Map<number, RoomRow[]> {
      const byBot = new Map<number, RoomRow[]>(botIds.map((id) => [id, []]))
      for (const { bot_id, ...room } of sharedRooms.all(JSON.stringify(botIds))) byBot.get(bot_id)?.push(room)
      return byBot
    },

    insert(name: string, token: string): number {
      const now = dbTime()
      return Number(insert.run(name, token, now, now).lastInsertRowid)
    },
    rename: (id: number, name: string): boolean => rename.run(name, dbTime(), id).changes > 0,
    retoken: (id: number, token: string): boolean => retoken.run(token, dbTime(), id).changes > 0,
  }
}
