import fp from 'fastify-plugin'
import qs from 'qs'

export const FORM_BODY_LIMIT = 2 * 1024 * 1024

// Rails-style nested form parameters ("user[name]=…", "user_ids[]=…"), with bounded depth
// and counts so a hostile form cannot build a huge object.
export function parseForm(text: string): Record<string, unknown> {
  return qs.parse(text, { depth: 4, parameterLimit: 1000, arrayLimit: 200, allowPrototypes: false, charset: 'utf-8' })
}

export default fp(
  async function body(app) {
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT }, (_request, text, done) => {
      try {
        done(null, parseForm(text as string))
      } catch {
        done(Object.assign(new Error('The form could not be read.'), { statusCode: 400 }), undefined)
      }
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
