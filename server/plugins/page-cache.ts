import fp from 'fastify-plugin'
import type { FastifyReply } from 'fastify'
import { pageCacheBudget, type CacheConfig, type Config } from '../config.ts'
import type { Models } from '../models/index.ts'
import { acceptsGzip, deflatePart, gzipOf, identityOf } from '../rendering/gzip.ts'
import { createMessageFragments, type MessageFragments } from '../rendering/message-fragments.ts'
import { PageCache, type CachedPage, type CachedShell } from '../rendering/page-cache.ts'
import { splicedGzip } from '../rendering/shell-splice.ts'
import { filledGzip, filledIdentity, type SlottedPage } from '../rendering/unread-slots.ts'

declare module 'fastify' {
  interface FastifyInstance {
    cacheConfig: CacheConfig
    pageCache: PageCache | null
    messageFragments: MessageFragments
    // The signature a cached page is valid for: `relevant` versions from the triggers, or the
    // naive `commit` generation. Call inside the request's read transaction.
    pageSignature(models: Models, relevant: () => string): string
  }
  interface FastifyReply {
    sendPage(page: CachedPage): FastifyReply
    sendSplicedPage(before: string, page: CachedPage, after: string): FastifyReply
    sendSlottedPage(page: SlottedPage, unread: ReadonlySet<number>): FastifyReply
    // A cached shell joined with a cached part, for a client that takes gzip.
    sendShellPage(shell: CachedShell, page: CachedPage, slotValues: readonly string[]): FastifyReply
  }
}

const HTML = 'text/html; charset=utf-8'
// Per-request parts are a few kilobytes; level 1 compresses them nearly as well, faster.
const SHELL_LEVEL = 1

// The page and fragment caches (docs/architecture.md, "Caching"). A cached page is served with its
// compressed bytes when the client takes gzip; a page with a per-request shell around a cached
// part compresses only the shell and splices the cached part in.
export default fp(
  async function pageCachePlugin(app, options: { config: Config }) {
    const config = options.config.cache
    app.decorate('cacheConfig', config)
    app.decorate('pageCache', config.pageCache ? new PageCache(pageCacheBudget(config, () => app.store.read((m) => m.users.activeCount()))) : null)
    app.decorate('messageFragments', createMessageFragments(app.messageRenderer, config))
    app.decorate('pageSignature', (models: Models, relevant: () => string) =>
      config.pageInvalidation === 'commit' ? models.cacheVersions.commit() : relevant(),
    )

    app.decorateReply('sendPage', function (this: FastifyReply, page: CachedPage) {
      this.code(200).type(HTML).header('vary', 'accept-encoding')
      if (!acceptsGzip(this.request.headers['accept-encoding'])) return this.send(identityOf(page.part))
      return this.header('content-encoding', 'gzip').send(page.gzip)
    })

    app.decorateReply('sendSplicedPage', function (this: FastifyReply, before: string, page: CachedPage, after: string) {
      this.code(200).type(HTML).header('vary', 'accept-encoding')
      const head = Buffer.from(before, 'utf8')
      const tail = Buffer.from(after, 'utf8')
      if (!acceptsGzip(this.request.headers['accept-encoding'])) return this.send(Buffer.concat([head, identityOf(page.part), tail]))
      const body = gzipOf([deflatePart(head, SHELL_LEVEL), page.part, deflatePart(tail, SHELL_LEVEL)])
      return this.header('content-encoding', 'gzip').send(body)
    })

    app.decorateReply('sendShellPage', function (this: FastifyReply, shell: CachedShell, page: CachedPage, slotValues: readonly string[]) {
      return this.code(200).type(HTML).header('vary', 'accept-encoding').header('content-encoding', 'gzip').send(splicedGzip(shell, page.part, slotValues))
    })

    app.decorateReply('sendSlottedPage', function (this: FastifyReply, page: SlottedPage, unread: ReadonlySet<number>) {
      this.code(200).type(HTML).header('vary', 'accept-encoding')
      if (!acceptsGzip(this.request.headers['accept-encoding'])) return this.send(filledIdentity(page, unread))
      return this.header('content-encoding', 'gzip').send(filledGzip(page, unread))
    })
  },
  { name: 'page-cache', dependencies: ['views', 'database'] },
)
