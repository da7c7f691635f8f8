import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { NestingTooDeep, plainText, sanitizeBody } from '../../models/rich-text/index.ts'
import { mentionsIn } from '../../models/message/mentionee.ts'
import { field } from '../../plugins/body.ts'

export const MAX_BODY_LENGTH = 100_000

export class BodyError extends Error {}

// The CPU work of a post (sanitising, plain text for search, mention names) happens here,
// before the write, so the writer's transaction stays short.
export function composeBody(app: FastifyInstance, raw: string | undefined): { body: string; plainText: string } {
  if (raw === undefined) throw new BodyError('A message needs a body.')
  if (raw.length > MAX_BODY_LENGTH) throw new BodyError('That message is too long.')
  const body = sanitizeOrRefuse(raw)
  const text = plainText(body, mentionNames(app, body))
  if (text.trim() === '' && !/<action-text-attachment/i.test(body)) throw new BodyError('A message needs a body.')
  return { body, plainText: text }
}

function sanitizeOrRefuse(raw: string): string {
  try {
    return sanitizeBody(raw)
  } catch (error) {
    if (error instanceof NestingTooDeep) throw new BodyError('That message is nested too deeply.')
    throw error
  }
}

export function mentionName(app: FastifyInstance, sgid: string): string | null {
  const found = app.signing.verifySignedGlobalId(sgid)
  if (!found || found.model !== 'User' || !/^\d+$/.test(found.id)) return null
  const [person] = app.store.read((m) => m.users.people([Number(found.id)]))
  return person?.name ?? null
}

// The names of everyone a body mentions, each signature checked once and the people read together
// in one transaction, however often they are mentioned; a body without sgids reads nothing.
export function mentionNames(app: FastifyInstance, body: string): (sgid: string) => string | null {
  const mentions = mentionsIn(body, (sgid) => app.signing.verifySignedGlobalId(sgid))
  if (mentions.size === 0) return (sgid) => mentionName(app, sgid)
  const names = new Map(app.store.read((m) => m.users.people([...new Set(mentions.values())])).map((person) => [person.id, person.name]))
  return (sgid) => (mentions.has(sgid) ? (names.get(mentions.get(sgid)!) ?? null) : mentionName(app, sgid))
}

// The composed body of a form's message[body], or null once a 422 has been sent.
export function readBody(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply): { body: string; plainText: string } | null {
  try {
    return composeBody(app, field(request.body, 'message', 'body'))
  } catch (error) {
    if (!(error instanceof BodyError)) throw error
    reply.sendError(422, error.message)
    return null
  }
}
