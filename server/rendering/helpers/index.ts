import type { RailsSigning } from '../../lib/rails/signing.ts'
import { avatarPaths } from './avatars.ts'
import { boostDomId, messageDomId, roomDomId, roomKey } from './dom.ts'
import { epochMs, iso8601 } from './time.ts'

// The helpers every template reaches as `it.h`.
export function createHelpers(signing: RailsSigning) {
  return {
    avatarPath: avatarPaths(signing),
    boostDomId,
    epochMs,
    iso8601,
    messageDomId,
    roomDomId,
    roomKey,
    signStreamName: (name: string) => signing.signStreamName(name),
  }
}

export type Helpers = ReturnType<typeof createHelpers>
