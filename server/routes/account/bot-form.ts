import type { FastifyRequest } from 'fastify'
import type { Config } from '../../config.ts'
import type { StoredUpload } from '../../lib/uploads.ts'
import { webhookUrlProblem } from '../../models/webhook.ts'
import { overriddenVerb } from '../method-override.ts'
import { FormRefused, readMultipartForm } from '../multipart-form.ts'
import { validName } from '../person-form.ts'

// user[name, webhook_url] as typed (a field left out is undefined), and user[avatar].
export interface BotInput {
  name?: string
  webhookUrl?: string
}

export type BotReading = { input: BotInput; error?: string } | { malformed: string }

export const NAME_NEEDED = 'Please name the bot (up to 255 characters).'

// A new bot needs a name; an update may leave the name out (it stays). A webhook URL that is
// not blank must be one we may post to (http or https, no user name or password).
export function readBotForm(body: unknown, options: { creating: boolean }): BotReading {
  const user = (body as { user?: unknown } | null | undefined)?.user ?? {}
  if (!user || typeof user !== 'object' || Array.isArray(user)) return { malformed: 'The form has no user fields.' }
  const input: BotInput = {}
  for (const [param, key] of [['name', 'name'], ['webhook_url', 'webhookUrl']] as const) {
    if (!Object.hasOwn(user, param)) continue
    const value = (user as Record<string, unknown>)[param]
    if (typeof value !== 'string') return { malformed: `user[${param}] must be text.` }
    input[key] = value
  }
  return { input, error: problemWith(input, options.creating) }
}

function problemWith(input: BotInput, creating: boolean): string | undefined {
  if ((creating || input.name !== undefined) && !validName((input.name ?? '').trim())) return NAME_NEEDED
  const url = input.webhookUrl?.trim() ?? ''
  return url === '' ? undefined : (webhookUrlProblem(url) ?? undefined)
}

export interface BotSubmission {
  body: unknown
  file: { upload: StoredUpload; filename: string } | null
  verb: string | null
}

// The form as sent: urlencoded, or multipart with its avatar streamed to disk (its _method,
// if any, among its fields). A refused multipart form throws FormRefused, with what was typed.
export async function readBotSubmission(request: FastifyRequest, config: Config): Promise<BotSubmission> {
  if (!request.isMultipart()) return { body: request.body, file: null, verb: overriddenVerb(request.body) }
  const form = await readMultipartForm(request, config, { fileField: 'user[avatar]' })
  return { body: form.body, file: form.file ? { upload: form.file, filename: form.filename } : null, verb: overriddenVerb(form.body) }
}

export { FormRefused }
