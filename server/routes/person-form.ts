import { field } from '../plugins/body.ts'

export interface PersonForm {
  name: string
  emailAddress: string
  password: string
}

const EMAIL = /^[^\s@]+@[^\s@]+$/

// The name, email and password fields shared by first run and joining.
export function readPerson(body: unknown): PersonForm | { error: string } {
  const name = field(body, 'user', 'name')?.trim() ?? ''
  const emailAddress = field(body, 'user', 'email_address')?.trim() ?? ''
  const password = field(body, 'user', 'password') ?? ''
  if (!name || name.length > 255) return { error: 'Please enter your name.' }
  if (!EMAIL.test(emailAddress) || emailAddress.length > 255) return { error: 'Please enter a valid email address.' }
  if (!password) return { error: 'Please choose a password.' }
  if (password.length > 1024) return { error: 'That password is too long.' }
  return { name, emailAddress, password }
}
