import { randomInt } from 'node:crypto'

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'
const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

function randomString(alphabet: string, length: number): string {
  let out = ''
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)]
  return out
}

// has_secure_token: 24 base58 characters.
export function secureToken(): string {
  return randomString(BASE58, 24)
}

export function alphanumeric(length: number): string {
  return randomString(ALPHANUMERIC, length)
}

// Account join codes look like "Ab3d-9XyZ-q7Rt".
export function joinCode(): string {
  return [alphanumeric(4), alphanumeric(4), alphanumeric(4)].join('-')
}
