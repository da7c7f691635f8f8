import type { FastifyInstance } from 'fastify'
import type { Registry } from 'prom-client'
import { counterFrom, gaugeFrom } from './registry.ts'

// What the app's services keep count of, read when scraped: the cable's sockets and their
// fan-out, the disk against its reserve, the page cache's size, and the email, webhook and
// push queues with their failures.
export function countServices(app: FastifyInstance, registry: Registry, reserveBytes: number): void {
  const cable = app.cable.server
  gaugeFrom(registry, { name: 'campfire_cable_connections', help: 'WebSockets open on /cable' }, () => cable.stats().connections)
  gaugeFrom(registry, { name: 'campfire_cable_subscriptions', help: 'Channel subscriptions on those sockets' }, () => cable.stats().subscriptions)
  counterFrom(registry, { name: 'campfire_fanout_deliveries_total', help: 'Broadcast frames queued for a subscriber' }, () => cable.fanOut.deliveries)
  counterFrom(registry, { name: 'campfire_fanout_socket_writes_total', help: 'Socket writes carrying those frames (a socket is written once per turn, however many frames it has)' }, () => cable.fanOut.socketWrites)

  const disk = app.diskSpace.monitor
  gaugeFrom(registry, { name: 'campfire_disk_free_bytes', help: "Free space on the storage folder's filesystem, as last sampled", aggregator: 'min' }, () => finite(disk.freeBytes))
  gaugeFrom(registry, { name: 'campfire_disk_reserve_bytes', help: 'The reserve kept free (CAMPFIRE_MIN_FREE_MB): uploads are refused below it, every write but text posts and sign-ins below a quarter of it', aggregator: 'max' }, () => reserveBytes)
  if (app.pageCache) {
    const pageCache = app.pageCache
    gaugeFrom(registry, { name: 'campfire_page_cache_bytes', help: 'Memory held by the page cache' }, () => pageCache.size.bytes)
  }

  gaugeFrom(registry, { name: 'campfire_email_queued', help: 'Missed-message email rows waiting to be sent', aggregator: 'max' }, () => (app.email.enabled ? app.store.read((m) => m.emailNotifications.pending()) : 0))
  counterFrom(registry, { name: 'campfire_emails_total', help: 'Missed-message emails, by outcome (retried: a send failed and waits for another try; gave_up: dropped after the last try)', labelNames: ['outcome'] }, () => {
    const stats = app.email.stats()
    return [[{ outcome: 'sent' }, stats.sent], [{ outcome: 'retried' }, stats.retried], [{ outcome: 'gave_up' }, stats.gaveUp], [{ outcome: 'skipped' }, stats.skipped]]
  })
  gaugeFrom(registry, { name: 'campfire_webhooks_queued', help: "Bots' webhook deliveries waiting or under way" }, () => app.webhooks.pending + app.webhooks.running)
  counterFrom(registry, { name: 'campfire_webhook_failures_total', help: 'Webhook deliveries that failed, by why (failed: not reached or refused; dropped: the queue was full)', labelNames: ['reason'] }, () => [
    [{ reason: 'failed' }, app.webhooks.failed],
    [{ reason: 'dropped' }, app.webhooks.dropped],
  ])
  gaugeFrom(registry, { name: 'campfire_push_queued', help: 'Web Push deliveries waiting or under way' }, () => app.webPush.queued())
  counterFrom(registry, { name: 'campfire_pushes_total', help: 'Web Push deliveries, by outcome (gone: the subscription had expired and was deleted)', labelNames: ['outcome'] }, () =>
    Object.entries(app.webPush.stats()).map(([outcome, value]) => [{ outcome }, value] as const),
  )
}

function finite(value: number): number {
  return Number.isFinite(value) ? value : 0
}
