import fp from 'fastify-plugin'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../config.ts'
import { DiskSpace, warnOutOfSpace, type UploadClaim } from '../lib/disk-space.ts'
import { TURBO_STREAM_TYPE, turboStream } from '../rendering/turbo-streams.ts'
import { errorPage } from './errors.ts'

export const OUT_OF_SPACE_MESSAGE = 'The server is out of disk space, so nothing was saved. Try again in a few minutes.'
const RETRY_AFTER_SECONDS = 60
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

export interface DiskSpaceGuard {
  readonly monitor: DiskSpace
  // Answers 507 in the form the client reads (a page, the composer's Turbo Stream, the bot
  // API's JSON), and warns once a minute however many writes are refused.
  refuse(request: FastifyRequest, reply: FastifyReply, cause: string): FastifyReply
}

declare module 'fastify' {
  interface FastifyInstance {
    diskSpace: DiskSpaceGuard
  }
  interface FastifyRequest {
    // An upload's share of the disk while it streams (readMultipartForm passes it to storeUpload).
    diskClaim: UploadClaim | null
  }
  interface FastifyContextConfig {
    // The writes the reserve's last quarter is kept for: signing in (never refused before it is
    // tried) and posting text (refused only once a write has failed for lack of space).
    diskReserve?: 'sign-in' | 'text-post'
  }
}

function isUpload(request: FastifyRequest): boolean {
  return String(request.headers['content-type'] ?? '').toLowerCase().startsWith('multipart/')
}

function wantsJson(request: FastifyRequest): boolean {
  const accept = String(request.headers.accept ?? '')
  return (accept.includes('application/json') && !accept.includes('text/html')) || (request.routeOptions.url ?? '').includes(':bot_key')
}

// A full disk is refused before it breaks anything: writes are turned away with 507 while the
// storage folder's filesystem is below its reserve (server/lib/disk-space.ts), and a write that
// fails for lack of space anyway gets the same answer from the error handler. An upload is
// admitted only if its declared length leaves the reserve whole, and is counted against it as
// it streams (a chunked one has no length to declare); within the reserve other writes go on
// until its last quarter, kept for text posts and sign-ins. Reading is never refused.
export default fp(
  async function diskSpace(app, options: { config: Config; sampleMs?: number }) {
    const monitor = new DiskSpace(options.config.storagePath, { minFreeBytes: options.config.minFreeBytes, sampleMs: options.sampleMs })
    let refused = 0

    const guard: DiskSpaceGuard = {
      monitor,
      refuse(request, reply, cause) {
        refused++
        warnOutOfSpace(request.log, { cause, freeBytes: monitor.freeBytes, refused, answer: 507 })
        reply.code(507).header('retry-after', String(RETRY_AFTER_SECONDS))
        if (wantsJson(request)) return reply.type('application/json; charset=utf-8').send({ error: OUT_OF_SPACE_MESSAGE, status: 507 })
        if (String(request.headers.accept ?? '').includes('text/vnd.turbo-stream.html'))
          return reply.type(TURBO_STREAM_TYPE).send(turboStream('append', 'composer-refusals', `<p class="refusal">${OUT_OF_SPACE_MESSAGE}</p>`))
        return reply.type('text/html; charset=utf-8').send(errorPage(507, OUT_OF_SPACE_MESSAGE))
      },
    }
    app.decorate('diskSpace', guard)
    if (app.hasDecorator('store')) app.store.writer.checkpointAfterBatches(() => monitor.short)

    app.decorateRequest('diskClaim', null)
    app.addHook('onRequest', (request, reply, done) => {
      if (SAFE_METHODS.has(request.method)) return done()
      if (isUpload(request)) {
        // A body over the upload limit gets its 413 from the parser, whatever the disk has.
        const declared = Math.min(Number(request.headers['content-length']) || 0, options.config.maxUploadBytes)
        const claim = monitor.claim(declared)
        if (!claim) return void guard.refuse(request, reply, 'an upload below CAMPFIRE_MIN_FREE_MB')
        request.diskClaim = claim
        reply.raw.once('close', () => claim.release())
        return done()
      }
      const keeps = request.routeOptions.config?.diskReserve
      if (keeps === 'sign-in') return done()
      if (keeps === 'text-post' ? monitor.refusesTextPosts() : monitor.refusesWrites()) return void guard.refuse(request, reply, 'below a quarter of CAMPFIRE_MIN_FREE_MB')
      done()
    })
    app.addHook('onClose', async () => monitor.close())
  },
  { name: 'disk-space', dependencies: ['errors'] },
)
