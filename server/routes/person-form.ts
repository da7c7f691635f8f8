import type { FastifyRequest } from 'fastify'
import type { Config } from '../config.ts'
import type { StoredUpload } from '../lib/uploads.ts'
import { field } from '../plugins/body.ts'
import { FormRefused, readMultipartForm, UploadRefused } from './multipart-form.ts'
import { prepareAvatar, type PreparedAvatar } from './users/avatar-upload.ts'
import { removeFiles } from '../lib/files.ts'

export interface PersonForm {
  name: string
  emailAddress: string
  password: string
}

const EMAIL = /^[^\s@]+@[^\s@]+$/

export const validName = (name: string): boolean => name !== '' && name.length <= 255
export const validEmail = (email: string): boolean => EMAIL.test(email) && email.length <= 255
// bcrypt reads 72 bytes (the forms stop there); longer ones are not refused, as upstream.
export const validPassword = (password: string): boolean => password.length <= 1024

// The name, email and password fields shared by first run and joining.
export function readPerson(body: unknown): PersonForm | { error: string } {
  const name = field(body, 'user', 'name')?.trim() ?? ''
  const emailAddress = field(body, 'user', 'email_address')?.trim() ?? ''
  const password = field(body, 'user', 'password') ?? ''
  if (!validName(name)) return { error: 'Please enter your name.' }
  if (!validEmail(emailAddress)) return { error: 'Please enter a valid email address.' }
  if (!password) return { error: 'Please choose a password.' }
  if (!validPassword(password)) return { error: 'That password is too long.' }
  return { name, emailAddress, password }
}

export type Signup =
  | { person: PersonForm; avatar: PreparedAvatar | null }
  | { status: number; error: string; name?: string; emailAddress?: string }

// A first-run or join submission: urlencoded, or multipart with an avatar (user[avatar]). The
// avatar's square is made only once the other fields are good; a refused one leaves no file.
export async function readSignup(request: FastifyRequest, config: Config): Promise<Signup> {
  let body: unknown = request.body
  let file: { upload: StoredUpload; filename: string } | null = null
  if (request.isMultipart()) {
    try {
      const form = await readMultipartForm(request, config, { fileField: 'user[avatar]' })
      body = form.body
      if (form.file) file = { upload: form.file, filename: form.filename }
    } catch (refused) {
      if (!(refused instanceof FormRefused)) throw refused
      return { status: refused.status, error: refused.message, name: field(refused.body, 'user', 'name'), emailAddress: field(refused.body, 'user', 'email_address') }
    }
  }
  const typed = { name: field(body, 'user', 'name'), emailAddress: field(body, 'user', 'email_address') }
  const person = readPerson(body)
  if ('error' in person) {
    if (file) await removeFiles([file.upload.path])
    return { status: 422, error: person.error, ...typed }
  }
  if (!file) return { person, avatar: null }
  try {
    return { person, avatar: await prepareAvatar(config.filesPath, file.upload, file.filename) }
  } catch (refused) {
    if (!(refused instanceof UploadRefused)) throw refused
    return { status: refused.status, error: refused.message, ...typed }
  }
}
