import type { FastifyInstance } from 'fastify'
import { plainText, sanitizeBody } from '../../models/rich-text/index.ts'

export const MAX_BODY_LENGTH = 100_000

export class BodyError extends Error {}

// The CPU work of a post (sanitising, plain text for search, mention names) happens here,
// before the write, so the writer's transaction stays short.
export function composeBody(app: FastifyInstance, raw: string | undefined): { body: string; plainText: string } {
  if (raw === undefined) throw new BodyError('A message needs a body.')
  if (raw.length > MAX_BODY_LENGTH) throw new BodyError('That message is too long.')
  const body = sanitizeBody(raw)
  const text = plainText(body, (sgid) => mentionName(app, sgid))
  if (text.trim() === '' && !/<action-text-attachment/i.test(body)) throw new BodyError('A message needs a body.')
  return { body, plainText: text }
}

function mentionName(app: FastifyInstance, sgid: string): string | null {
  const found = app.signing.verifySignedGlobalId(sgid)
  if (!found || found.model !== 'User' || !/^\d+$/.test(found.id)) return null
  const [person] = app.store.read((m) => m.users.people([Number(found.id)]))
  return person?.name ?? null
}
