import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { ROOM_TYPES } from '../models/room.ts'
import { inboxEntry } from '../rendering/inbox-entries.ts'
import { unverifiedGlobalId } from '../rendering/messages.ts'
import type { CreatedMessage } from './message-listeners.ts'

// Keeps the inbox's index of mentions (models/message/mentions.ts) and brings new entries to
// open inboxes. The checks the triggers leave are worked off from boot (the backfill of
// migration 014, and whatever another writer left since), after each new message, and before an
// inbox is read (`settle`). A new message that mentions someone, or Pings them while they are
// away, is prepended to their open inbox over the cable, on a later turn of the event loop.
const MAX_WAITING_MESSAGES = 1000

declare module 'fastify' {
  interface FastifyInstance {
    mentions: { settle(): Promise<void> }
  }
}

export default fp(
  async function mentions(app) {
    // A mention counts as the room shows it: one whose signature no longer verifies (a rotated
    // secret, a Rails 7 envelope) still names its person, as upstream resolves people.
    const verify = (sgid: string) => app.signing.verifySignedGlobalId(sgid) ?? unverifiedGlobalId(sgid)
    const waiting: CreatedMessage[] = []
    let working: Promise<void> = Promise.resolve()

    // Every check left is worked off, a bounded number per write transaction.
    async function settle(): Promise<void> {
      while (app.store.read((m) => m.mentionIndex.pending())) await app.store.write((m) => void m.mentionIndex.check(verify))
    }

    function flush(): void {
      const batch = waiting.splice(0)
      working = working
        .then(settle)
        .then(() => batch.forEach((created) => deliver(app, created, verify)))
        .catch((error: unknown) => app.log.error({ err: error }, 'the inbox could not take new mentions'))
    }

    app.decorate('mentions', { settle: () => (working = working.then(settle)) })
    app.messageListeners.add((created) => {
      if (waiting.length >= MAX_WAITING_MESSAGES) return app.log.warn({ messageId: created.message.id }, 'inbox queue is full; message not delivered live')
      if (waiting.length === 0) setImmediate(flush)
      waiting.push(created)
    })
    // From boot on, in the background: a large backfill (after an upgrade) must not hold up
    // listening, and an inbox read waits for it anyway (settle, above).
    app.addHook('onReady', async () => {
      working = working.then(settle).catch((error: unknown) => app.log.error({ err: error }, 'the inbox could not index mentions at boot'))
    })
    app.addHook('onClose', async () => {
      await working.catch(() => undefined)
    })
  },
  { name: 'mentions', dependencies: ['database', 'auth', 'views', 'cable', 'message-listeners'] },
)

function deliver(app: FastifyInstance, { message, room, origin }: CreatedMessage, verify: (sgid: string) => { model: string; id: string } | null): void {
  const found = app.store.read((m) => {
    const mentioned = m.messagePusher.mentionedUserIds(message.id, verify)
    const members = room.type === ROOM_TYPES.direct ? m.memberships.userIdsIn(room.id) : []
    const recipients = m.inbox.recipients(message.id, mentioned, members)
    const row = recipients.length > 0 ? m.messages.find(message.id) : undefined
    return row ? { recipients, display: m.messageDisplay.load([row], [room])[0] } : null
  })
  if (!found?.display) return
  const fragment = app.messageRenderer.render(found.display, origin)
  for (const { userId, unread } of found.recipients) app.cable.inboxEntered(userId, inboxEntry(message.id, fragment, unread))
}
