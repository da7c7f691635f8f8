import fp from 'fastify-plugin'
import type { MessageRow } from '../models/message.ts'
import type { RoomRow } from '../models/room.ts'
import type { UserRow } from '../models/user.ts'

// What happens to a new message after its answer is on its way: webhooks to bots, Web Push to
// people who are away. A listener is called once the message is committed and broadcast, must
// return at once (it queues its own work; nothing here is awaited) and cannot fail the post.
export interface CreatedMessage {
  message: MessageRow
  room: RoomRow
  creator: UserRow
  // The origin the post came to, for absolute URLs (a webhook's paths, a push's link).
  origin: string
  // False for a bot's reply to a webhook (postAsBot with triggersWebhooks: false): replies
  // never trigger webhooks; everything else (Web Push) treats it as any message.
  triggersWebhooks: boolean
}

export type MessageListener = (created: CreatedMessage) => void

export interface MessageListeners {
  add(listener: MessageListener): void
  created(created: CreatedMessage): void
}

declare module 'fastify' {
  interface FastifyInstance {
    messageListeners: MessageListeners
  }
}

export default fp(
  async function messageListeners(app) {
    const listeners: MessageListener[] = []
    app.decorate('messageListeners', {
      add: (listener: MessageListener) => void listeners.push(listener),
      created(created: CreatedMessage) {
        for (const listener of listeners) {
          try {
            listener(created)
          } catch (error) {
            app.log.error({ err: error, messageId: created.message.id }, 'a new-message listener failed')
          }
        }
      },
    })
  },
  { name: 'message-listeners' },
)
