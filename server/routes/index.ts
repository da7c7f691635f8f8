import type { FastifyInstance } from 'fastify'
import type { RateLimit } from '../lib/rate-limit.ts'
import type { Config } from '../config.ts'
import cable from './cable.ts'
import firstRuns from './first-runs.ts'
import messages from './messages.ts'
import botApi from './messages/bot-api.ts'
import blobs from './blobs.ts'
import representations from './representations.ts'
import boosts from './messages/boosts.ts'
import saves from './messages/saves.ts'
import unreads from './messages/unreads.ts'
import rooms from './rooms.ts'
import refreshes from './rooms/refreshes.ts'
import sidebars from './users/sidebars.ts'
import mentions from './users/mentions.ts'
import savedMessages from './users/saves.ts'
import avatars from './users/avatars.ts'
import profiles from './users/profiles.ts'
import emailPreferences from './users/email-preferences.ts'
import emailUnsubscribes from './email-unsubscribes.ts'
import bans from './users/bans.ts'
import notificationHelp from './users/notification-help.ts'
import pushSubscriptions from './users/push-subscriptions.ts'
import pushTestNotifications from './users/push-subscriptions/test-notifications.ts'
import sessions, { signInLimitFor } from './sessions.ts'
import oidcStart from './sessions/oidc/start.ts'
import oidcCallback from './sessions/oidc/callback.ts'
import singleSignOn from './account/single-sign-on.ts'
import oidcIdentities from './users/oidc-identities.ts'
import transfers from './sessions/transfers.ts'
import qrCodes from './qr-codes.ts'
import joinCodes from './account/join-codes.ts'
import accounts from './accounts.ts'
import accountUsers from './account/users.ts'
import claimLinks from './account/claim-links.ts'
import claims from './users/claims.ts'
import accountBots from './account/bots.ts'
import botKeys from './account/bot-keys.ts'
import customStyles from './account/custom-styles.ts'
import logos from './account/logos.ts'
import accountExports from './account/exports.ts'
import userExports from './users/exports.ts'
import erasures from './users/erasures.ts'
import up from './up.ts'
import pwa from './pwa.ts'
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
  await app.register(firstRuns, { config: options.config })
  const signInLimit = options.signInLimit ?? signInLimitFor(app)
  await app.register(sessions, { signInLimit })
  await app.register(oidcStart)
  await app.register(oidcCallback, { signInLimit, config: options.config })
  await app.register(transfers)
  await app.register(accountUsers)
  await app.register(claimLinks)
  await app.register(claims)
  await app.register(accountBots, { config: options.config })
  await app.register(botKeys)
  await app.register(joinCodes)
  await app.register(logos, { config: options.config })
  await app.register(customStyles)
  await app.register(accountExports)
  await app.register(accounts, { config: options.config })
  await app.register(singleSignOn)
  await app.register(users, { config: options.config })
  await app.register(avatars, { config: options.config })
  await app.register(sidebars)
  await app.register(mentions)
  await app.register(savedMessages)
  await app.register(profiles, { config: options.config })
  await app.register(oidcIdentities)
  await app.register(emailPreferences)
  await app.register(emailUnsubscribes)
  await app.register(bans)
  await app.register(userExports)
  await app.register(erasures, { config: options.config })
  await app.register(pushSubscriptions)
  await app.register(notificationHelp)
  await app.register(pushTestNotifications)
  await app.register(autocompletableUsers)
  await app.register(rooms)
  await app.register(refreshes)
  await app.register(messages, { config: options.config })
  await app.register(botApi, { config: options.config })
  await app.register(blobs, { config: options.config })
  await app.register(representations, { config: options.config })
  await app.register(boosts)
  await app.register(saves)
  await app.register(unreads)
  await app.register(involvements)
  await app.register(opens)
  await app.register(closeds)
  await app.register(directs)
  await app.register(searches)
  await app.register(unfurlLinks)
  await app.register(qrCodes)
  await app.register(pwa)
  await app.register(up)
  await app.register(cable)
}
