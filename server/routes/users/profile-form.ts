import { BIO_LIMIT } from '../../models/user/profile.ts'
import { validEmail, validName, validPassword } from '../person-form.ts'

const FIELDS = { name: 'name', email_address: 'emailAddress', password: 'password', bio: 'bio' } as const

// What the form sent, as typed (a field left out is undefined).
export interface ProfileInput {
  name?: string
  emailAddress?: string
  password?: string
  bio?: string
}

export type ProfileReading = { input: ProfileInput; error?: string } | { malformed: string }

// user[name, email_address, password, bio]: each a string when it is there. A blank password
// leaves the password as it is.
// A form that sent only a file (the avatar's) has no text fields at all.
export function readProfile(body: unknown, options: { fileSent: boolean }): ProfileReading {
  const user = (body as { user?: unknown } | null | undefined)?.user ?? (options.fileSent ? {} : undefined)
  if (!user || typeof user !== 'object' || Array.isArray(user)) return { malformed: 'The form has no user fields.' }
  const input: ProfileInput = {}
  for (const [param, key] of Object.entries(FIELDS)) {
    if (!Object.hasOwn(user, param)) continue
    const value = (user as Record<string, unknown>)[param]
    if (typeof value !== 'string') return { malformed: `user[${param}] must be text.` }
    input[key] = value
  }
  return { input, error: problemWith(input) }
}

function problemWith(input: ProfileInput): string | undefined {
  if (input.name !== undefined && !validName(input.name.trim())) return 'Please enter your name.'
  if (input.emailAddress !== undefined && !validEmail(input.emailAddress.trim())) return 'Please enter a valid email address.'
  if (input.password && !validPassword(input.password)) return 'That password is too long.'
  if (input.bio !== undefined && input.bio.length > BIO_LIMIT) return `Your bio can be at most ${BIO_LIMIT} characters.`
  return undefined
}
