import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import cookie from '@fastify/cookie'
import type { Config } from './config.ts'
import type { RateLimit } from './lib/rate-limit.ts'
import auth from './plugins/auth.ts'
import body, { FORM_BODY_LIMIT } from './plugins/body.ts'
import cable, { type CableOptions } from './plugins/cable.ts'
import redis from './plugins/redis.ts'
import bannedContent from './plugins/banned-content.ts'
import exportJobs from './plugins/exports.ts'
import unattachedFiles from './plugins/unattached-files.ts'
import messageListeners from './plugins/message-listeners.ts'
import webhooks, { type WebhookOptions } from './plugins/webhooks.ts'
import webPush, { type WebPushOptions } from './plugins/web-push.ts'
import email, { type EmailOptions } from './plugins/email.ts'
import mentions from './plugins/mentions.ts'
import database from './plugins/database.ts'
import errors from './plugins/errors.ts'
import diskSpace from './plugins/disk-space.ts'
import passwords from './plugins/passwords.ts'
import video from './plugins/video.ts'
import security from './plugins/security.ts'
import views from './plugins/views.ts'
import browserGate from './plugins/browser-gate.ts'
import compression from './plugins/compression.ts'
import pageCache from './plugins/page-cache.ts'
import responseMemo from './plugins/response-memo.ts'
import serverTiming from './plugins/server-timing.ts'
import oidc, { type OidcTestOptions } from './plugins/oidc.ts'
import cpuLedger from './plugins/cpu-ledger.ts'
import memoryReport from './plugins/memory-report.ts'
import metrics from './plugins/metrics.ts'
import routes from './routes/index.ts'
import { postAsBot } from './routes/messages/bot-posting.ts'
import { requestForLog } from './lib/log-redaction.ts'
import { rebalanceKeepAlive } from './cluster/rebalance.ts'
import { logStream } from './lib/log-format.ts'
import type { LitestreamReadout } from './litestream/lag.ts'

export interface AppOptions {
  config: Config
  logger?: FastifyServerOptions['logger']
  passwordCost?: number
  signInLimit?: RateLimit
  cable?: CableOptions
  // Webhook delivery limits (tests shorten the 7 s timeout).
  webhooks?: WebhookOptions
  // Web Push delivery rules and limits (tests deliver to a push service of their own on loopback).
  webPush?: Omit<WebPushOptions, 'config'>
  // Single sign-on adjustments for tests (a skewed clock).
  oidc?: OidcTestOptions
  // Missed-message email timings (tests shorten the poll and retry waits).
  email?: Omit<EmailOptions, 'config' | 'workerId'>
  // This app is worker N of a cluster (WEB_CONCURRENCY > 1, server/cluster/).
  workerId?: number
  // A folder of compiled piscina workers to run instead of the sources (tests: workerSource).
  compiledWorkers?: string
  // The Litestream this process runs beside it (main.ts starts it once the app is built).
  litestream?: () => LitestreamReadout | null
}

// Whatever logger is asked for, request URLs are logged without the secrets some carry.
function withRedaction(logger: FastifyServerOptions['logger']): FastifyServerOptions['logger'] {
  if (logger === false || logger === undefined) return logger
  const options = logger === true ? {} : logger
  return { ...options, serializers: { ...options.serializers, req: requestForLog } }
}

// How much longer than HTTP_REQUEST_TIMEOUT a silent connection is kept: several checks of it.
const SILENT_CONNECTION_GRACE_MS = 5_000

function noRouteSchemas(): never {
  throw new Error('route schemas are not compiled here: check the input in the handler, as the other routes do')
}

// Builds the whole application without listening; main.ts listens, tests inject.
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config } = options
  const app = Fastify({
    logger: withRedaction(options.logger ?? { level: config.logLevel, stream: logStream(config.logFormat) }),
    bodyLimit: FORM_BODY_LIMIT,
    trustProxy: config.trustedProxies.length > 0 ? [...config.trustedProxies] : false,
    routerOptions: { maxParamLength: 1000 },
    // Slow headers and slow requests (a body that trickles in, or never comes) get a 408,
    // checked every second (not Node's 30 s). A connection silent a little longer than a whole
    // request may take (a client not reading its response) is closed; were it the same length,
    // that close would come first and drop a request still owed its 408.
    connectionTimeout: config.httpTimeouts.requestMs + SILENT_CONNECTION_GRACE_MS,
    requestTimeout: config.httpTimeouts.requestMs,
    keepAliveTimeout: config.httpTimeouts.keepAliveMs,
    http: { headersTimeout: config.httpTimeouts.headersMs, connectionsCheckingInterval: 1_000 },
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // No route declares a schema: forms are parsed and checked by hand, and pages are not JSON.
    // Fastify's default compilers (Ajv and fast-json-stringify) would be loaded at every boot
    // for nothing, a tenth of a cold start; a schema added later fails at boot, by name.
    schemaController: { compilersFactory: { buildValidator: noRouteSchemas, buildSerializer: noRouteSchemas } },
  })

  await app.register(serverTiming, { workerId: options.workerId })
  if (options.workerId !== undefined) rebalanceKeepAlive(app)
  await app.register(cpuLedger)
  await app.register(errors)
  await app.register(compression)
  await app.register(cookie)
  await app.register(body)
  await app.register(database, { config, bootedByPrimary: options.workerId !== undefined, compiledWorkers: options.compiledWorkers })
  await app.register(diskSpace, { config })
  await app.register(security, { config })
  await app.register(passwords, { threads: config.passwordWorkers, cost: options.passwordCost, compiledWorkers: options.compiledWorkers })
  await app.register(video, { config })
  await app.register(auth, { config })
  await app.register(oidc, { config, test: options.oidc })
  await app.register(views, { config })
  await app.register(browserGate)
  await app.register(pageCache, { config })
  await app.register(responseMemo, { config })
  await app.register(redis, { config })
  await app.register(cable, options.cable ?? {})
  await app.register(messageListeners)
  await app.register(webhooks, { ...options.webhooks, config, post: postAsBot })
  await app.register(webPush, { ...options.webPush, config })
  await app.register(email, { ...options.email, config, workerId: options.workerId })
  await app.register(mentions)
  await app.register(bannedContent, { config })
  await app.register(exportJobs, { config })
  await app.register(unattachedFiles, { config, scanAtBoot: options.workerId === undefined || options.workerId === 1 })
  await app.register(memoryReport)
  await app.register(metrics, { config, workerId: options.workerId, litestream: options.litestream })
  await app.register(routes, { config, signInLimit: options.signInLimit })
  return app
}
