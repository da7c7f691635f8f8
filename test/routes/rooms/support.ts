import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { SESSION_COOKIE } from '../../../server/plugins/auth.ts'
import { inject, sameOrigin } from '../../helper.ts'
import { users } from '../../fixtures.ts'

// Form bodies with repeated keys, as browsers send "user_ids[]".
export function send(app: FastifyInstance, cookie: string, method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, fields: [string, string | number][] = []): Promise<LightMyRequestResponse> {
  const payload = new URLSearchParams(fields.map(([key, value]): [string, string] => [key, String(value)])).toString()
  return inject(app, cookie, { method, url, payload, headers: { 'content-type': 'application/x-www-form-urlencoded', ...sameOrigin } })
}

export function get(app: FastifyInstance, cookie: string, url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return inject(app, cookie, { method: 'GET', url, headers })
}

// Bots cannot sign in with a password; a session row stands in for one to test the rules.
export async function botCookie(app: FastifyInstance): Promise<string> {
  const token = await app.store.write((m) => m.sessions.start(users.bender.id, '127.0.0.1', 'test'))
  return `${SESSION_COOKIE}=${app.signing.signCookie(SESSION_COOKIE, token)}`
}

export async function restrictRoomCreation(app: FastifyInstance): Promise<void> {
  await app.store.write((m) => m.db.prepare(`UPDATE accounts SET settings = '{"restrict_room_creation_to_administrators":true}'`).run())
}

export function query<T>(app: FastifyInstance, sql: string, ...params: unknown[]): T {
  return app.store.read((m) => m.db.prepare(sql).pluck().get(...params)) as T
}

export function memberIds(app: FastifyInstance, roomId: number): number[] {
  return app.store.read((m) => m.db.prepare('SELECT user_id FROM memberships WHERE room_id = ? ORDER BY user_id').pluck().all(roomId)) as number[]
}

export function roomRow(app: FastifyInstance, roomId: number) {
  return app.store.read((m) => m.db.prepare('SELECT name, type, creator_id FROM rooms WHERE id = ?').get(roomId)) as
    | { name: string | null; type: string; creator_id: number }
    | undefined
}

export const roomCount = (app: FastifyInstance): number => query<number>(app, 'SELECT COUNT(*) FROM rooms')
export const newestRoomId = (app: FastifyInstance): number => query<number>(app, 'SELECT MAX(id) FROM rooms')
