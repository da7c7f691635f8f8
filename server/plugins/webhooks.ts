import fp from 'fastify-plugin'
import type { Config } from '../config.ts'
import { BoundedQueue } from '../lib/bounded-queue.ts'
import { postWebhook, type PrivateAddressPolicy, type WebhookOutcome } from '../lib/webhook-request.ts'
import { ROOM_TYPES } from '../models/room.ts'
import { mentionsIn } from '../models/message/mentionee.ts'
import { messageBasis, webhookJson, type MessageBasis } from '../models/webhook/payload.ts'
import type { CreatedMessage } from './message-listeners.ts'
import { destination, WebhookFailures } from './webhooks/failures.ts'
import { mentionLookups } from './webhooks/mentions.ts'
import { planReply, postReply, timeoutNotice, type BotPoster } from './webhooks/replies.ts'

// Bots' outgoing webhooks (§1.35, Bot::WebhookJob): a new message goes to every active bot of a
// direct room, or to the active bots it mentions in a shared room, never to its own creator,
// and only to bots with a webhook. Delivery is off the request path: the listener returns at
// once, the recipients are read on the next turn of the event loop, and each delivery waits in
// a bounded queue (beyond it, it is dropped with a warning) for one of a few slots. A bot's
// reply is posted as the bot (postAsBot) with triggersWebhooks false: it is broadcast and
// pushed like any message, and this listener ignores it, so replies never trigger webhooks.
// A destination that cannot be reached at all is left alone for a few seconds, and failures
// are logged once a minute per destination (webhooks/failures.ts): the harness points every
// webhook at a closed port, and that must cost next to nothing.
//
// Destinations: only administrators set a webhook URL (the bots page); members choose which bot
// hears a message but never where it goes, and nothing in a message or a reply changes the
// URL. Redirects are not followed. Private and loopback addresses are allowed by default, as
// upstream does, since a self-hosted team's bots usually run on the same host or LAN;
// CAMPFIRE_WEBHOOK_PRIVATE_ADDRESSES=deny limits webhooks to public addresses.
export const WEBHOOK_TIMEOUT_MS = 7000
export const WEBHOOK_CONCURRENCY = 8
export const WEBHOOK_MAX_PENDING = 1000
const FAILURE_LOG_INTERVAL_MS = 60_000
export const UNREACHABLE_PAUSE_MS = 5000

export interface WebhookOptions {
  // To connect, and again to read the reply (7 s).
  timeoutMs?: number
  concurrency?: number
  maxPending?: number
  // Defaults to config.webhookPrivateAddresses.
  privateAddresses?: PrivateAddressPolicy
  // The largest reply read; defaults to config.maxUploadBytes.
  maxReplyBytes?: number
  // How long deliveries to a destination that could not be reached are skipped (5 s).
  unreachablePauseMs?: number
}

export interface Webhooks {
  readonly pending: number
  readonly running: number
  // Deliveries refused because the queue was full, and those that failed or timed out, since boot.
  readonly dropped: number
  readonly failed: number
  // Resolves when nothing is queued or running (tests, benchmarks).
  idle(): Promise<void>
}

declare module 'fastify' {
  interface FastifyInstance {
    webhooks: Webhooks
  }
}

export default fp(
  async function webhooks(app, options: WebhookOptions & { config: Config; post: BotPoster }) {
    const { config } = options
    const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS
    const maxBytes = options.maxReplyBytes ?? config.maxUploadBytes
    const privateAddresses = options.privateAddresses ?? config.webhookPrivateAddresses
    const notice = timeoutNotice(timeoutMs)
    let dropped = 0
    let failed = 0
    let unlogged = 0
    let droppedLoggedAt = -Infinity
    const queue = new BoundedQueue({
      concurrency: options.concurrency ?? WEBHOOK_CONCURRENCY,
      maxPending: options.maxPending ?? WEBHOOK_MAX_PENDING,
      onError: (error) => app.log.warn({ err: error }, 'a webhook reply could not be posted'),
    })
    const failures = new WebhookFailures({ pauseMs: options.unreachablePauseMs ?? UNREACHABLE_PAUSE_MS, logIntervalMs: FAILURE_LOG_INTERVAL_MS })
    const { verify, mentionName } = mentionLookups(app)

    async function deliver(created: CreatedMessage, basis: MessageBasis, botId: number, signal: AbortSignal): Promise<void> {
      const { room, message, creator } = created
      // Still a message of the room, and still a bot of it with a webhook, now that its turn came.
      const target = app.store.read((m) => (m.messages.findInRoom(message.id, room.id) ? m.webhooks.target(room.id, botId) : undefined))
      if (!target) return
      const webhook = destination(target.url)
      if (failures.paused(webhook)) return
      const outcome = await postWebhook(target.url, webhookJson(basis, room, message, creator, target), { timeoutMs, maxBytes, privateAddresses, signal })
      if (signal.aborted) return
      logOutcome(outcome, { botId, messageId: message.id, webhook })
      const plan = planReply(outcome, notice, mentionName)
      if (plan.kind === 'none') return
      await postReply(app, options.post, { room, botId, origin: created.origin }, plan, { path: config.filesPath, maxBytes })
    }

    function logOutcome(outcome: WebhookOutcome, context: { botId: number; messageId: number; webhook: string }): void {
      if (outcome.kind === 'failed' || outcome.kind === 'timeout') failed++
      if (outcome.kind === 'failed') {
        const count = failures.failed(context.webhook, outcome.reason)
        if (count !== null) app.log.warn({ ...context, reason: outcome.reason, failuresSinceLastLog: count }, 'webhook delivery failed')
      } else if (outcome.kind === 'timeout') app.log.info({ ...context, phase: outcome.phase }, 'webhook timed out')
      else if (outcome.status !== 200) app.log.info({ ...context, status: outcome.status }, 'webhook answered without success; nothing posted')
    }

    // The recipients, and what they are all told, are worked out once per message.
    function fanOut(created: CreatedMessage): void {
      if (queue.isClosed) return
      const { room, message, creator } = created
      let work: { botIds: number[]; basis: MessageBasis } | null
      try {
        work = app.store.read((m) => {
          const direct = room.type === ROOM_TYPES.direct
          const html = m.messages.body(message.id) ?? ''
          const mentions = mentionsIn(html, verify)
          const recipients = m.webhooks.recipients(room.id, creator.id, direct, direct ? [] : [...new Set(mentions.values())])
          // Bots whose webhook is known to be unreachable just now are skipped here already.
          const urls = recipients.length === 0 ? new Map<number, string>() : m.webhooks.urlsFor(recipients)
          const botIds = recipients.filter((id) => urls.has(id) && !failures.paused(destination(urls.get(id)!)))
          return botIds.length === 0 ? null : { botIds, basis: messageBasis(m, message, html, mentions) }
        })
      } catch (error) {
        app.log.warn({ err: error, messageId: message.id }, 'webhook recipients could not be read')
        return
      }
      if (!work) return
      const { basis } = work
      let refused = 0
      for (const botId of work.botIds) if (!queue.push((signal) => deliver(created, basis, botId, signal))) refused++
      if (refused > 0) {
        dropped += refused
        unlogged += refused
        if (Date.now() - droppedLoggedAt < FAILURE_LOG_INTERVAL_MS) return
        app.log.warn({ messageId: message.id, dropped: unlogged, pending: queue.pending }, 'webhook queue is full; deliveries dropped')
        droppedLoggedAt = Date.now()
        unlogged = 0
      }
    }

    app.messageListeners.add((created) => {
      if (created.triggersWebhooks && !queue.isClosed) setImmediate(fanOut, created)
    })
    app.decorate('webhooks', {
      get pending() { return queue.pending },
      get running() { return queue.running },
      get dropped() { return dropped },
      get failed() { return failed },
      idle: () => new Promise<void>((resolve) => setImmediate(() => void queue.idle().then(resolve))),
    } satisfies Webhooks)
    app.addHook('onClose', async () => {
      await queue.close()
      if (dropped > 0) app.log.warn({ droppedSinceStart: dropped }, 'webhook deliveries were dropped while the queue was full')
    })
  },
  { name: 'webhooks', dependencies: ['message-listeners'] },
)
