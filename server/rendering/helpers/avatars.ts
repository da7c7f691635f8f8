import { LRUCache } from 'lru-cache'
import type { RailsSigning } from '../../lib/rails/signing.ts'
import { epochMs } from './time.ts'
import { onFirstUse } from '../../lib/on-first-use.ts'

// /users/<signed avatar id>/avatar?v=<updated_at>: the signed id stops enumeration of avatars by
// numeric id, and ?v= changes whenever the person does, so the URL can be cached.
export function avatarPaths(signing: RailsSigning) {
  const tokens = onFirstUse(() => new LRUCache<number, string>({ max: 20_000 }))
  return (user: { id: number; updated_at: string }): string => {
    let token = tokens().get(user.id)
    if (token === undefined) {
      token = signing.signedId('User', user.id, 'avatar')
      tokens().set(user.id, token)
    }
    return `/users/${token}/avatar?v=${epochMs(user.updated_at)}`
  }
}
