import type { FastifyInstance } from 'fastify'
import type { RateLimit } from '../lib/rate-limit.ts'
import type { Config } from '../config.ts'
import cable from './cable.ts'
import firstRuns from './first-runs.ts'
import messages from './messages.ts'
import blobs from './blobs.ts'
import boosts from './messages/boosts.ts'
import rooms from './rooms.ts'
import refreshes from './rooms/refreshes.ts'
import sidebars from './users/sidebars.ts'
import avatars from './users/avatars.ts'
import sessions from './sessions.ts'
import up from './up.ts'
import users from './users.ts'
import welcome from './welcome.ts'
import closeds from './rooms/closeds.ts'
import directs from './rooms/directs.ts'
import involvements from './rooms/involvements.ts'
import opens from './rooms/opens.ts'
import autocompletableUsers from './autocompletable/users.ts'
import searches from './searches.ts'
import unfurlLinks from './unfurl-links.ts'

export interface RoutesOptions {
  config: Config
  signInLimit?: RateLimit
}

// The routing table, in the order of upstream's config/routes.rb.
export default async function routes(app: FastifyInstance, options: RoutesOptions) {
  await app.register(welcome)
  await app.register(firstRuns)
  await app.register(sessions, { signInLimit: options.signInLimit })
  await app.register(users)
  await app.register(avatars, { config: options.config })
  await app.register(sidebars)
  await app.register(autocompletableUsers)
  await app.register(rooms)
  await app.register(refreshes)
  await app.register(messages, { config: options.config })
  await app.register(blobs, { config: options.config })
  await app.register(boosts)
  await app.register(involvements)
  await app.register(opens)
  await app.register(closeds)
  await app.register(directs)
  await app.register(searches)
  await app.register(unfurlLinks)
  await app.register(up)
  await app.register(cable)
}
