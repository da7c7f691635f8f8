import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import { users } from '../../fixtures.ts'

// Bender's key in the fixtures: "<id>-<bot_token>".
export const BENDER_KEY = `${users.bender.id}-BenderToken1`

// What `curl -d` sends.
export const CURL_FORM = { 'content-type': 'application/x-www-form-urlencoded' }

export function botMessagesUrl(roomId: number, key = BENDER_KEY, rest = ''): string {
  return `/rooms/${roomId}/${key}/messages${rest}`
}

// A bot API request: no cookie, no Fetch Metadata, as a script sends it.
export function botRequest(
  app: FastifyInstance,
  method: InjectOptions['method'],
  url: string,
  payload?: string | Buffer,
  headers: Record<string, string> = CURL_FORM,
): Promise<LightMyRequestResponse> {
  return app.inject({ method, url, ...(payload === undefined ? {} : { payload }), headers })
}

export function messageCount(app: FastifyInstance): number {
  return app.store.read((m) => m.db.prepare('SELECT count(*) FROM messages').pluck().get()) as number
}

// The stored message: its row, rich-text body and search text.
export function storedMessage(app: FastifyInstance, id: number) {
  return app.store.read((m) =>
    m.db
      .prepare(
        `SELECT messages.room_id, messages.creator_id, action_text_rich_texts.body, message_search_index.body AS search
           FROM messages
           LEFT JOIN action_text_rich_texts ON action_text_rich_texts.record_type = 'Message' AND action_text_rich_texts.record_id = messages.id
           LEFT JOIN message_search_index ON message_search_index.rowid = messages.id
          WHERE messages.id = ?`,
      )
      .get(id),
  ) as { room_id: number; creator_id: number; body: string | null; search: string | null } | undefined
}

// The id in a 201's Location: <origin>/messages/<id>.
export function locationId(response: LightMyRequestResponse): number {
  const match = /^https?:\/\/[^/]+\/messages\/(\d+)$/.exec(String(response.headers.location ?? ''))
  if (!match) throw new Error(`no message Location: ${String(response.headers.location)}`)
  return Number(match[1])
}
