import { isIP } from 'node:net'
import type { Connection } from './database.ts'
import { dbTime } from '../lib/time.ts'
import { isPublicAddress } from '../lib/private-network-guard.ts'

// Ban's validation: an address can be banned only when it parses and is public. Upstream
// refuses loopback, private and link-local ones; we refuse every range the SSRF guard does
// (CGNAT, documentation, multicast, IPv6 forms embedding a private IPv4, ...), since banning
// one of those blocks a proxy or a neighbour rather than the person.
export function isBannableAddress(address: string | null | undefined): address is string {
  if (!address) return false
  const text = address.trim()
  return text === address && isIP(text) !== 0 && isPublicAddress(text)
}

export function bans(db: Connection) {
  const banned = db.prepare<[string]>('SELECT 1 FROM bans WHERE ip_address = ? LIMIT 1').pluck()
  const insert = db.prepare('INSERT INTO bans (user_id, ip_address, created_at, updated_at) VALUES (?, ?, ?, ?)')
  const deleteForUser = db.prepare('DELETE FROM bans WHERE user_id = ?')
  const addressesOf = db.prepare<[number], string>('SELECT ip_address FROM bans WHERE user_id = ? ORDER BY id').pluck()

  return {
    isBanned: (ipAddress: string): boolean => banned.get(ipAddress) !== undefined,
    addressesOf: (userId: number): string[] => addressesOf.all(userId),

    create(userId: number, ipAddress: string): void {
      const now = dbTime()
      insert.run(userId, ipAddress, now, now)
    },

    deleteFor(userId: number): number {
      return deleteForUser.run(userId).changes
    },
  }
}
