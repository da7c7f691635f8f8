import fp from 'fastify-plugin'
import type { Config } from '../config.ts'
import type { RedisLink } from '../lib/redis-link.ts'

declare module 'fastify' {
  interface FastifyInstance {
    // The connections to REDIS_URL (lib/redis-link.ts), or null: one process needs no Redis.
    redis: RedisLink | null
  }
}

// How long boot waits for Redis before serving without it (it is caught up with later).
const BOOT_WAIT_MS = 2000

// Without REDIS_URL nothing of Redis is loaded, let alone connected. With it, the link starts
// once every plugin has subscribed what it needs (the cable relay), and boot waits a moment for
// it so that the first sockets hear everything; a Redis that is down never stops the app.
export default fp(
  async function redis(app, options: { config: Config }) {
    const { redisUrl, cableChannelPrefix } = options.config
    if (redisUrl === null) {
      app.decorate('redis', null)
      return
    }
    const { RedisLink } = await import('../lib/redis-link.ts')
    const link = new RedisLink({ url: redisUrl, namespace: `${cableChannelPrefix}:campfire-ts`, log: app.log })
    app.decorate('redis', link)
    app.addHook('onReady', async () => {
      if (!(await link.start(BOOT_WAIT_MS))) app.log.warn('redis: not reachable yet; serving without it, broadcasts cross once it is')
    })
    app.addHook('onClose', () => link.close())
  },
  { name: 'redis' },
)
