import type { Connection } from '../database.ts'
import { dbTime } from '../../lib/time.ts'

export interface OidcIdentityRow {
  id: number
  user_id: number
  issuer: string
  subject: string
  email_address: string | null
  created_at: string
}

// Who each person is at the identity provider (the provider's `sub`), the ID tokens of the
// sessions it started, and the account's "sign in with the provider only" switch.
export function oidcIdentities(db: Connection) {
  const bySubject = db.prepare<[string, string], OidcIdentityRow>('SELECT * FROM oidc_identities WHERE issuer = ? AND subject = ?')
  const forUser = db.prepare<[number, string], OidcIdentityRow>('SELECT * FROM oidc_identities WHERE user_id = ? AND issuer = ?')
  const insert = db.prepare('INSERT INTO oidc_identities (user_id, issuer, subject, email_address, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)')
  const touch = db.prepare('UPDATE oidc_identities SET email_address = ?, updated_at = ? WHERE id = ?')
  const unlink = db.prepare('DELETE FROM oidc_identities WHERE user_id = ? AND issuer = ?')
  const rememberToken = db.prepare('INSERT OR REPLACE INTO oidc_sessions (session_id, id_token) VALUES (?, ?)')
  const idToken = db.prepare<[string], string>('SELECT o.id_token FROM oidc_sessions o JOIN sessions s ON s.id = o.session_id WHERE s.token = ?').pluck()
  const sessionId = db.prepare<[string], number>('SELECT id FROM sessions WHERE token = ?').pluck()
  const anyoneByEmail = db.prepare<[string], { id: number; role: number; status: number }>('SELECT id, role, status FROM users WHERE email_address = ? COLLATE NOCASE')
  const administratorsWithPassword = db.prepare<[], number>('SELECT count(*) FROM users WHERE role = 1 AND status = 0 AND password_digest IS NOT NULL').pluck()
  const providerOnly = db.prepare<[], number>('SELECT provider_only FROM oidc_settings WHERE id = 1').pluck()
  const setProviderOnly = db.prepare('INSERT INTO oidc_settings (id, provider_only, updated_at) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET provider_only = excluded.provider_only, updated_at = excluded.updated_at')

  return {
    findBySubject: (issuer: string, subject: string): OidcIdentityRow | undefined => bySubject.get(issuer, subject),
    forUser: (userId: number, issuer: string): OidcIdentityRow | undefined => forUser.get(userId, issuer),

    link(userId: number, issuer: string, subject: string, email: string | null): void {
      const now = dbTime()
      insert.run(userId, issuer, subject, email, now, now)
    },

    // The email the provider gave at the latest sign-in, shown on the profile.
    seen(identity: OidcIdentityRow, email: string | null): void {
      if (email !== identity.email_address) touch.run(email, dbTime(), identity.id)
    },

    // Whoever has this email, whatever their standing (findActiveByEmail skips the banned).
    anyoneByEmail: (email: string) => anyoneByEmail.get(email),

    unlink: (userId: number, issuer: string): boolean => unlink.run(userId, issuer).changes > 0,

    rememberIdToken(sessionToken: string, token: string): void {
      const id = sessionId.get(sessionToken)
      if (id !== undefined) rememberToken.run(id, token)
    },
    idTokenFor: (sessionToken: string): string | undefined => idToken.get(sessionToken),

    // The administrators who could still sign in if the provider broke.
    administratorsWithPassword: (): number => administratorsWithPassword.get() ?? 0,
    providerOnly: (): boolean => providerOnly.get() === 1,
    setProviderOnly: (on: boolean): void => void setProviderOnly.run(on ? 1 : 0, dbTime()),
  }
}
