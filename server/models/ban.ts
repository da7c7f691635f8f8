import type { Connection } from './database.ts'

export function bans(db: Connection) {
  const banned = db.prepare<[string]>('SELECT 1 FROM bans WHERE ip_address = ? LIMIT 1').pluck()

  return {
    isBanned: (ipAddress: string): boolean => banned.get(ipAddress) !== undefined,
  }
}
