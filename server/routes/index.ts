import type { FastifyInstance } from 'fastify'
import type { RateLimit } from '../lib/rate-limit.ts'
import firstRuns from './first-runs.ts'
import sessions from './sessions.ts'
import up from './up.ts'
import users from './users.ts'
import welcome from './welcome.ts'

export interface RoutesOptions {
  signInLimit?: RateLimit
}

// The routing table, in the order of upstream's config/routes.rb.
export default async function routes(app: FastifyInstance, options: RoutesOptions) {
  await app.register(welcome)
  await app.register(firstRuns)
  await app.register(sessions, { signInLimit: options.signInLimit })
  await app.register(users)
  await app.register(up)
}
