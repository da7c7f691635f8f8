import fp from 'fastify-plugin'
import type { FastifyRequest } from 'fastify'
import qs from 'qs'

export const FORM_BODY_LIMIT = 2 * 1024 * 1024
// Longer Content-Type headers are refused: a multipart boundary (up to 200 characters) and a
// charset fit many times over.
export const CONTENT_TYPE_LIMIT = 512
// Forms are read as UTF-8 (US-ASCII is a part of it); a form in any other charset is refused
// rather than read as if it were UTF-8.
const FORM_CHARSETS = new Set(['utf-8', 'utf8', 'us-ascii'])

export const UNREADABLE_FORM = 'The form could not be read.'

function refused(statusCode: number, message: string): Error {
  return Object.assign(new Error(message), { statusCode })
}

// "+" is a space, and every %XX must decode to UTF-8: an undecodable escape is an error (qs
// would keep it as it is, to be stored literally).
function strictDecoder(text: string): string {
  return decodeURIComponent(text.replace(/\+/g, ' '))
}

// Rails-style nested form parameters ("user[name]=…", "user_ids[]=…"), with bounded depth
// and counts so a hostile form cannot build a huge object. Throws on an undecodable escape.
export function parseForm(text: string): Record<string, unknown> {
  return qs.parse(text, { depth: 4, parameterLimit: 1000, arrayLimit: 200, allowPrototypes: false, charset: 'utf-8', decoder: strictDecoder })
}

function charsetOf(request: FastifyRequest): string | null {
  const match = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(request.headers['content-type'] ?? '')
  return match ? match[1]!.toLowerCase() : null
}

// A form route reads a urlencoded or multipart form, or a JSON object (as Rails does). Any
// other body is refused before a route sees it, never read as an empty form: a type with no
// parser here (text/plain, none at all) is a 415, as is a form in a charset other than UTF-8
// or a Content-Type over CONTENT_TYPE_LIMIT; a form with an undecodable escape, or JSON that
// is not an object (an array, a string), is a 400. (The bot API reads raw bodies of any type
// in a scope of its own, routes/messages/bot-api.ts.)
export default fp(
  async function body(app) {
    app.addHook('onRequest', (request, _reply, done) => {
      if ((request.headers['content-type']?.length ?? 0) > CONTENT_TYPE_LIMIT) return done(refused(415, `The Content-Type header is over ${CONTENT_TYPE_LIMIT} characters.`))
      done()
    })
    app.removeContentTypeParser('text/plain')
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT }, (request, text, done) => {
      const charset = charsetOf(request)
      if (charset !== null && !FORM_CHARSETS.has(charset)) return done(refused(415, 'Forms are read as UTF-8 only.'), undefined)
      try {
        done(null, parseForm(text as string))
      } catch {
        done(refused(400, UNREADABLE_FORM), undefined)
      }
    })
    const json = app.getDefaultJsonParser('error', 'error')
    app.removeContentTypeParser('application/json')
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, text, done) => {
      json(request, text as string, (error, value) => {
        if (error) return done(error, undefined)
        if (!value || typeof value !== 'object' || Array.isArray(value)) return done(refused(400, `${UNREADABLE_FORM} A JSON body must be an object.`), undefined)
        done(null, value)
      })
    })
  },
  { name: 'body' },
)
// Reads one string field of a parsed form, e.g. field(body, 'user', 'email_address').
export function field(body: unknown, ...path: string[]): string | undefined {
  let value: unknown = body
  for (const key of path) {
    if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined
    value = (value as Record<string, unknown>)[key]
  }
  return typeof value === 'string' ? value : undefined
}

export function fieldList(body: unknown, ...path: string[]): string[] {
  let value: unknown = body
  for (const key of path) {
    if (!value || typeof value !== 'object') return []
    value = (value as Record<string, unknown>)[key]
  }
  if (typeof value === 'string') return [value]
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string')
  if (value && typeof value === 'object') return Object.values(value).filter((v): v is string => typeof v === 'string')
  return []
}
