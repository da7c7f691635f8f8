// The container image's command (the Dockerfile's CMD): the server as `npm start` runs it, plus
// what an image has to bring along. It makes the storage folders that are mounted or kept
// (db/ and files/ under CAMPFIRE_STORAGE_PATH; the log goes to standard output, which the
// container engine keeps, and nothing is written to a logs/ folder), and when WEB_CONCURRENCY asks for several
// workers and REDIS_URL is unset, it starts a redis-server beside them (local-redis.ts) and
// gives them its socket, as upstream's image runs Redis beside Rails. Then server/main.ts runs
// as always; on SIGTERM it stops the workers, and the redis-server is stopped as it exits.
// A cluster's workers run this file too (cluster.fork runs the primary's script): they go
// straight to the server.
import cluster from 'node:cluster'
import { join } from 'node:path'
import { startLocalRedis } from './cluster/local-redis.ts'
import { primaryLog } from './cluster/log.ts'
import { makeFolder } from './lib/make-folder.ts'
import { readLogFormat, readLogLevel, readWebConcurrency, storageLocation, type LogLevel } from './config.ts'

const STORAGE_FOLDERS = ['db', 'files']

if (cluster.isPrimary) {
  const log = primaryLog(logLevel(), orElse(readLogFormat, 'json'))
  // A storage setting the config refuses is left for the server to report.
  const storagePath = orElse<string | null>(() => storageLocation().storagePath, null)
  for (const folder of storagePath === null ? [] : STORAGE_FOLDERS.map((name) => join(storagePath, name))) {
    try {
      makeFolder(folder)
    } catch (error) {
      log.warn({}, `cannot make ${folder}: ${(error as Error).message}`)
    }
  }
  if (needsLocalRedis()) {
    try {
      const redis = await startLocalRedis(process.env.REDIS_SERVER_PATH || 'redis-server', log)
      process.env.REDIS_URL = redis.url
      process.once('exit', () => redis.stop())
      log.info({ redis: redis.pid }, `started a local redis-server for the ${process.env.WEB_CONCURRENCY} workers at ${redis.url}`)
    } catch (error) {
      log.error({}, `Campfire cannot start: ${(error as Error).message}`)
      process.exit(78)
    }
  }
}

// The compiled file (dist/container.js) runs dist/main.js beside it; from the sources, main.ts.
await import(new URL(import.meta.url.endsWith('.ts') ? './main.ts' : './main.js', import.meta.url).href)

// Several workers and no Redis named: the case server/config.ts refuses, which this file answers.
// A value the config refuses is left for the server to report.
function needsLocalRedis(): boolean {
  return orElse(readWebConcurrency, 1) > 1 && !process.env.REDIS_URL?.trim()
}

// The level the server will log at; the server itself refuses a wrong one.
function logLevel(): LogLevel {
  return orElse(readLogLevel, 'info')
}

function orElse<T>(read: () => T, fallback: T): T {
  try {
    return read()
  } catch {
    return fallback
  }
}
