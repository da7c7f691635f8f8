import type { RailsSigning } from '../../lib/rails/signing.ts'
import { avatarPaths } from './avatars.ts'
import { boostDomId, messageDomId, roomDomId, roomKey } from './dom.ts'
import { epochMs, iso8601 } from './time.ts'
import { isAllEmoji } from '../../models/rich-text/index.ts'

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

// The helpers every template reaches as `it.h`.
export function createHelpers(signing: RailsSigning) {
  return {
    avatarPath: avatarPaths(signing),
    boostDomId,
    epochMs,
    iso8601,
    isAllEmoji,
    reactions: REACTIONS,
    messageDomId,
    roomDomId,
    roomKey,
    signStreamName: (name: string) => signing.signStreamName(name),
  }
}

export type Helpers = ReturnType<typeof createHelpers>
