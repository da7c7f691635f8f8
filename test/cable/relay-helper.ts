import type { TestContext } from 'node:test'
import type { FastifyServerOptions } from 'fastify'
import { buildApp } from '../../server/app.ts'
import { RateLimit } from '../../server/lib/rate-limit.ts'
import { loadFixtures, type UserName } from '../fixtures.ts'
import { signIn, tempStorage, testConfig } from '../helper.ts'
import type { CableApp } from './cable-helper.ts'
import { compiledWorkers } from '../support/compiled-server.ts'

export interface RelayedAppsOptions {
  count?: number
  // 'shared': sign-ins count against the limit kept in Redis, as in production; by default
  // each app has a generous local one, so that tests may sign in as often as they like.
  signInLimit?: 'shared'
  // Each app's logger, by its index (e.g. { level: 'warn', stream } to read what it logs).
  logger?: (index: number) => FastifyServerOptions['logger']
}

// Two (or more) apps as two worker processes have them: one SQLite file, each app with its
// own Store, caches and CableServer, all connected to one Redis. Each listens on its own
// loopback port, so a test chooses which "worker" every socket and request reaches.
export async function startRelayedApps(t: TestContext, redisUrl: string, options: RelayedAppsOptions = {}): Promise<CableApp[]> {
  const config = testConfig(tempStorage(t), { REDIS_URL: redisUrl })
  const apps: CableApp[] = []
  for (let index = 0; index < (options.count ?? 2); index++) {
    const signInLimit = options.signInLimit === 'shared' ? undefined : new RateLimit(1000, 60_000)
    const app = await buildApp({ config, logger: options.logger?.(index) ?? false, passwordCost: 4, compiledWorkers: await compiledWorkers(), signInLimit })
    t.after(() => app.close())
    if (index === 0) app.store.writeNow((m) => loadFixtures(m.db))
    await app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = app.server.address() as { port: number }
    const cookies = new Map<UserName, Promise<string>>()
    const cookie = (name: UserName) => cookies.get(name) ?? cookies.set(name, signIn(app, name)).get(name)!
    apps.push({ app, url: `ws://127.0.0.1:${port}/cable`, origin: `http://127.0.0.1:${port}`, cookie })
  }
  return apps
}
