import { createRequire } from 'node:module'

// Slack's emoji short names are Cal Henderson's emoji-data set ("iamcal"), which emojibase-data
// ships as a table of code points → short name(s). A skin tone travels as a second name
// ("+1::skin-tone-2"), and is the tone modifier's own entry in the same table.
type ShortcodeTable = Record<string, string | string[]>

let byName: Map<string, string> | null = null

function table(): Map<string, string> {
  if (byName) return byName
  const require = createRequire(import.meta.url)
  const codes = require('emojibase-data/en/shortcodes/iamcal.json') as ShortcodeTable
  byName = new Map()
  for (const [hexcode, names] of Object.entries(codes)) {
    const emoji = String.fromCodePoint(...hexcode.split('-').map((hex) => parseInt(hex, 16)))
    for (const name of Array.isArray(names) ? names : [names]) byName.set(name, emoji)
  }
  return byName
}

// The emoji a short name stands for, with its skin tone; null for a name Slack's set does not
// have (a workspace's custom emoji).
export function emojiFor(shortName: string): string | null {
  const [base, ...modifiers] = shortName.split('::')
  const emoji = table().get(base!)
  if (emoji === undefined) return null
  const tones = modifiers.map((modifier) => table().get(modifier) ?? '').join('')
  return emoji + tones
}
