import multipart from '@fastify/multipart'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Config } from '../../config.ts'
import { RAW_BODY_LIMIT, type BotParams } from './bot-scoped.ts'
import boostsByBots from './boosts/by-bots.ts'
import byBots from './by-bots.ts'

// The bot API, /rooms/:room_id/:bot_key/messages…: its own scope, where the key in the URL is
// the only way in (a session cookie counts for nothing here), there is no forgery protection
// (scripts post from anywhere), and a body is read as it came: `curl -d 'Hello!'` says
// application/x-www-form-urlencoded, but it is the message, not a form. Multipart is read for
// an `attachment` file. A raw body is bounded (four bytes for each character a message may have).
export default async function botApi(app: FastifyInstance, options: { config: Config }) {
  await app.register(async function botScope(scope) {
    scope.removeAllContentTypeParsers()
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: RAW_BODY_LIMIT }, (_request, body, done) => done(null, body))
    await scope.register(multipart, { throwFileSizeLimit: true })

    // Authentication#bot_authentication: the active bot the key names, else off to sign in.
    scope.addHook('onRequest', async (request: FastifyRequest<BotParams>, reply) => {
      const key = request.params.bot_key ?? ''
      const bot = key.length <= 100 ? app.store.read((m) => m.bots.authenticate(key)) : undefined
      if (!bot) return reply.redirect('/session/new', 302)
      request.user = bot
      request.session = null
    })

    await scope.register(byBots, options)
    await scope.register(boostsByBots)
  })
}

