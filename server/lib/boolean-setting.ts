// The one reading of an on/off environment variable: true, false, 1, 0, yes or no (any case,
// spaces around ignored). Unset or blank is undefined (the caller's default); anything else is
// null, which the configuration refuses at boot rather than taking as either.
const TRUE = new Set(['true', '1', 'yes'])
const FALSE = new Set(['false', '0', 'no'])

export function parseBoolean(value: string | undefined): boolean | null | undefined {
  const word = value?.trim().toLowerCase() ?? ''
  if (word === '') return undefined
  if (TRUE.has(word)) return true
  if (FALSE.has(word)) return false
  return null
}
