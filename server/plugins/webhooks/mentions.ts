import type { FastifyInstance } from 'fastify'
import { LRUCache } from 'lru-cache'
import type { VerifyGlobalId } from '../../models/message/mentionee.ts'
import { onFirstUse } from '../../lib/on-first-use.ts'

// Reading mentions for webhooks: the same bots are mentioned again and again, so each sgid's
// signature is checked once (a bounded cache); and a reply's mentions are shown by name.
export function mentionLookups(app: FastifyInstance): { verify: VerifyGlobalId; mentionName: (sgid: string) => string | null } {
  const verified = onFirstUse(() => new LRUCache<string, { model: string; id: string } | false>({ max: 10_000 }))
  const verify: VerifyGlobalId = (sgid) => {
    let found = verified().get(sgid)
    if (found === undefined) verified().set(sgid, (found = app.signing.verifySignedGlobalId(sgid) ?? false))
    return found || null
  }
  const mentionName = (sgid: string): string | null => {
    const found = verify(sgid)
    if (!found || found.model !== 'User' || !/^\d+$/.test(found.id)) return null
    return app.store.read((m) => m.users.people([Number(found.id)]))[0]?.name ?? null
  }
  return { verify, mentionName }
}
