import type { AccountSettings } from '../../models/account.ts'

export const NAME_LIMIT = 255
export const INVALID_NAME = `Please give the account a name of up to ${NAME_LIMIT} characters.`

// What PATCH /account asks for: params.require(:account).permit(:name, :logo, settings: {}).
// Unknown settings are ignored (upstream answers them with a 500); a value that is not a plain
// string (a list, a nested hash) is malformed.
export type AccountForm =
  | { malformed: true }
  | { malformed: false; present: boolean; name?: string; settings: Partial<AccountSettings> }

// ActiveModel::Type::Boolean: these strings are false, "" is nil (not set), anything else true.
const FALSE_VALUES = new Set(['0', 'f', 'F', 'false', 'FALSE', 'off', 'OFF'])

export function castBoolean(value: string): boolean {
  return value !== '' && !FALSE_VALUES.has(value)
}

export function readAccountForm(body: unknown): AccountForm {
  const account = objectAt(body, 'account')
  if (account === null) return { malformed: true }
  if (account === undefined) return { malformed: false, present: false, settings: {} }
  const name = account.name
  if (name !== undefined && typeof name !== 'string') return { malformed: true }
  const settings = objectAt(account, 'settings')
  if (settings === null) return { malformed: true }
  const restrict = settings?.restrict_room_creation_to_administrators
  if (restrict !== undefined && typeof restrict !== 'string') return { malformed: true }
  return {
    malformed: false,
    present: true,
    name,
    settings: restrict === undefined ? {} : { restrict_room_creation_to_administrators: castBoolean(restrict) },
  }
}

export function validName(name: string): string | null {
  const trimmed = name.trim()
  return trimmed.length > 0 && trimmed.length <= NAME_LIMIT ? trimmed : null
}

// The hash at `key`: undefined when it is absent, null when it is there but not a hash.
function objectAt(value: unknown, key: string): Record<string, unknown> | null | undefined {
  if (!value || typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined
  const found = (value as Record<string, unknown>)[key]
  return found && typeof found === 'object' && !Array.isArray(found) ? (found as Record<string, unknown>) : null
}
