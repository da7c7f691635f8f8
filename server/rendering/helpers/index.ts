import type { RailsSigning } from '../../lib/rails/signing.ts'
import { avatarPaths } from './avatars.ts'
import { accountLogoPath, styleElementText } from './logos.ts'
import { boostDomId, messageDomId, roomDomId, roomKey } from './dom.ts'
import { epochMs, iso8601, longDate, shortTime } from './time.ts'
import { translationsFor } from './translations.ts'
import { isAllEmoji } from '../../models/rich-text/index.ts'
import { latin1Html } from '../flat-string.ts'
import { unreadClass } from '../unread-slots.ts'

// The quick boosts in every message's menu.
export const REACTIONS: [string, string][] = [
  ['👍', 'Thumbs up'],
  ['👏', 'Clapping'],
  ['👋', 'Waving hand'],
  ['💪', 'Muscle'],
  ['❤️', 'Red heart'],
  ['😂', 'Face with tears of joy'],
  ['🎉', 'Party popper'],
  ['🔥', 'Fire'],
]

// The same for the menu every message carries, the characters as HTML that is Latin-1 only
// (see latin1Html).
const REACTIONS_HTML: [string, string][] = REACTIONS.map(([character, title]) => [latin1Html(character), title])

// The helpers every template reaches as `it.h`.
export function createHelpers(signing: RailsSigning) {
  return {
    accountLogoPath,
    avatarPath: avatarPaths(signing),
    boostDomId,
    epochMs,
    iso8601,
    isAllEmoji,
    longDate,
    reactions: REACTIONS_HTML,
    messageDomId,
    roomDomId,
    roomKey,
    shortTime,
    signStreamName: (name: string) => signing.signStreamName(name),
    styleElementText,
    translations: translationsFor,
    unreadClass,
  }
}

export type Helpers = ReturnType<typeof createHelpers>
