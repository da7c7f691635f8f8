import { createWriteStream, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import fp from 'fastify-plugin'
import type { Config } from '../config.ts'
import { openForExport, type ExportScope } from '../models/export/rows.ts'
import { writeArchive, type ArchiveSummary } from '../rendering/export/archive.ts'

// Whose export a file is: the account's (administrators share it) or one person's own.
export type ExportOwner = 'account' | `person-${number}`

export type ExportStatus =
  | { state: 'none' }
  | { state: 'preparing'; startedAt: string }
  | { state: 'ready'; finishedAt: string; bytes: number; scope: ExportScope; summary: ArchiveSummary }
  | { state: 'failed'; finishedAt: string }

export interface Exports {
  status(owner: ExportOwner): ExportStatus
  // 'busy' while any export is being prepared: one runs at a time, on the whole server.
  start(owner: ExportOwner, scope: ExportScope): 'started' | 'busy'
  // The finished zip's path, or null.
  file(owner: ExportOwner): string | null
  // Whether someone else's export is being prepared (this owner's would be refused).
  busyFor(owner: ExportOwner): boolean
  settled(): Promise<void>
}

declare module 'fastify' {
  interface FastifyInstance {
    exports: Exports
  }
}

interface Lock {
  owner: ExportOwner
  pid: number
  startedAt: string
}

// Exports prepared in the background (upstream has none): each is written to
// <storage>/exports/<owner>.zip.partial and renamed once complete, with <owner>.json beside it
// saying what it holds. A lock file made with O_EXCL keeps it to one export at a time across
// every process of the server (WEB_CONCURRENCY); a lock left by a process that died is cleared.
// The newest finished export of each owner is kept until the next one replaces it.
export default fp(
  async function exports(app, options: { config: Config }) {
    const folder = join(options.config.storagePath, 'exports')
    const lockPath = join(folder, 'running.lock')
    const paths = (owner: ExportOwner) => ({ zip: join(folder, `${owner}.zip`), partial: join(folder, `${owner}.zip.partial`), meta: join(folder, `${owner}.json`) })
    const aborts = new AbortController()
    let running: Promise<void> | null = null

    function currentLock(): Lock | null {
      let lock: Lock
      try {
        lock = JSON.parse(readFileSync(lockPath, 'utf8')) as Lock
      } catch {
        return null
      }
      if (lock.pid !== process.pid && !alive(lock.pid)) {
        rmSync(lockPath, { force: true })
        return null
      }
      return lock
    }

    function take(owner: ExportOwner): Lock | null {
      mkdirSync(folder, { recursive: true })
      const lock: Lock = { owner, pid: process.pid, startedAt: new Date().toISOString() }
      for (let attempt = 0; attempt < 2; attempt++) {
        try {
          writeFileSync(lockPath, JSON.stringify(lock), { flag: 'wx' })
          return lock
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || currentLock() !== null) return null
        }
      }
      return null
    }

    async function run(owner: ExportOwner, scope: ExportScope): Promise<void> {
      const { zip, partial, meta } = paths(owner)
      const db = openForExport(options.config.databasePath)
      try {
        const summary = await writeArchive({ db, scope, filesPath: options.config.filesPath, signal: aborts.signal }, createWriteStream(partial))
        renameSync(partial, zip)
        writeFileSync(meta, JSON.stringify({ state: 'ready', finishedAt: new Date().toISOString(), bytes: statSync(zip).size, scope, summary }))
        app.log.info({ owner, scope, ...summary }, 'prepared an export')
      } catch (err) {
        quietly(() => rmSync(partial, { force: true }))
        if (aborts.signal.aborted) app.log.warn({ owner, scope }, 'an export was stopped with the server; start it again once it is back')
        else {
          quietly(() => writeFileSync(meta, JSON.stringify({ state: 'failed', finishedAt: new Date().toISOString() })))
          app.log.error({ err, owner, scope }, 'preparing an export failed')
        }
      } finally {
        db.close()
        quietly(() => rmSync(lockPath, { force: true }))
      }
    }

    const service: Exports = {
      status(owner) {
        const lock = currentLock()
        if (lock?.owner === owner) return { state: 'preparing', startedAt: lock.startedAt }
        try {
          return JSON.parse(readFileSync(paths(owner).meta, 'utf8')) as ExportStatus
        } catch {
          return { state: 'none' }
        }
      },
      start(owner, scope) {
        if (!take(owner)) return 'busy'
        running = run(owner, scope).finally(() => (running = null))
        return 'started'
      },
      file(owner) {
        return service.status(owner).state === 'ready' ? paths(owner).zip : null
      },
      busyFor(owner) {
        const lock = currentLock()
        return lock !== null && lock.owner !== owner
      },
      async settled() {
        await running
      },
    }
    app.decorate('exports', service)

    app.addHook('onClose', async () => {
      aborts.abort(new Error('the server is stopping'))
      await running
    })
  },
  { name: 'exports', dependencies: ['database'] },
)

// Clearing up after an export never fails the server (the storage folder may be going away).
function quietly(work: () => void): void {
  try {
    work()
  } catch {
    // Nothing more to do.
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
