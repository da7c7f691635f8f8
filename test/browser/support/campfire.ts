import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT, startServer, stopServer, type ServerProcess } from '../../support/server-process.ts'
import { pruneOlderThanADay } from '../../../server/lib/prune-old-entries.ts'
import { sourceDigest } from '../../support/source-digest.ts'

export const SECRET_KEY_BASE = 'c'.repeat(64) + 'd'.repeat(64)
export const PASSWORD = 'secret123456'

export interface Campfire {
  baseUrl: string
  storage: string
  labels: Record<string, string | number>
  // Stops the server, runs `whileStopped` (say, a write straight into its database), starts it again.
  restart(whileStopped?: () => void | Promise<void>): Promise<void>
  stop(): Promise<void>
  // The server process's id (for a fault set on it, such as a file-size limit).
  pid(): number
}

export type TestSeed = 'development' | 'harness'

// Which dataset a browser test gets unless it asks: CAMPFIRE_TEST_SEED=harness runs any of them
// on the harness-shaped one (`npm run seed -- --harness`), whose labels, rooms and emails are
// the same names; people's names are upstream's short ones there (David, Jason, JZ, Kevin).
export function defaultTestSeed(): TestSeed {
  return process.env.CAMPFIRE_TEST_SEED === 'harness' ? 'harness' : 'development'
}

// A real server process on a seeded temporary database (the development dataset: David, Jason,
// JZ, Kevin, the busy "All Talk" room…), restartable on the same port.
// `settings` adds to the server's environment (say, CAMPFIRE_MAX_UPLOAD_MB); `command` runs
// another entry point than server/main.ts (say, test/support/push-server.ts).
export async function startCampfire(
  t: { after: (fn: () => Promise<void> | void) => void },
  settings: Record<string, string> = {},
  seed: TestSeed = defaultTestSeed(),
  command?: string[],
): Promise<Campfire> {
  const storage = mkdtempSync(join(tmpdir(), 'campfire-browser-'))
  const env = { ...settings, CAMPFIRE_STORAGE_PATH: storage, SECRET_KEY_BASE, DISABLE_SSL: 'true', LOG_LEVEL: 'warn' }
  cpSync(seededTemplate(seed, settings), storage, { recursive: true })
  const labels = JSON.parse(readFileSync(join(storage, 'db', 'labels.json'), 'utf8')) as Record<string, string | number>
  let server: ServerProcess = await startServer({ ...env, LOG_LEVEL: 'info' }, ROOT, command)
  const port = new URL(server.baseUrl).port
  const campfire: Campfire = {
    baseUrl: server.baseUrl,
    storage,
    labels,
    async restart(whileStopped) {
      await stopServer(server)
      await whileStopped?.()
      server = await startServer({ ...env, LOG_LEVEL: 'info', HTTP_PORT: port }, ROOT, command)
    },
    async stop() {
      await stopServer(server)
    },
    pid: () => server.child.pid!,
  }
  t.after(async () => {
    await stopServer(server)
    rmSync(storage, { recursive: true, force: true })
  })
  return campfire
}

// The seeded storage folder each server starts on a copy of: seeded once (`npm run seed`, in a
// process of its own, as before) into tmp/test-seeds/, keyed on the seed, the settings and a digest
// of the sources that make it, and then copied for every server instead of seeded again. The seeds
// run on their own fixed clock, so a copy holds what a fresh seed would.
function seededTemplate(seed: TestSeed, settings: Record<string, string>): string {
  const parent = join(ROOT, 'tmp', 'test-seeds')
  const folder = join(parent, `${seed}-${sourceDigest(['server', 'migrations', 'test/load', 'package-lock.json'], JSON.stringify(settings))}`)
  if (existsSync(join(folder, 'db', 'labels.json'))) return folder
  mkdirSync(parent, { recursive: true })
  pruneOlderThanADay(parent)
  // Seeded beside it and renamed into place, so a file running at the same time never copies a half-made seed.
  const scratch = `${folder}.${process.pid}`
  rmSync(scratch, { recursive: true, force: true })
  const env = { ...settings, CAMPFIRE_STORAGE_PATH: scratch, SECRET_KEY_BASE, DISABLE_SSL: 'true', LOG_LEVEL: 'warn' }
  const seedArgs = seed === 'harness' ? ['--harness'] : []
  // The harness seed's password comes from VERIFICATION_PASSWORD; the tests sign in with PASSWORD.
  execFileSync(process.execPath, ['--import', 'tsx', 'test/load/seed.ts', ...seedArgs], { cwd: ROOT, env: { ...process.env, VERIFICATION_PASSWORD: PASSWORD, ...env }, stdio: 'ignore' })
  try {
    renameSync(scratch, folder)
  } catch (error) {
    rmSync(scratch, { recursive: true, force: true })
    if (!existsSync(join(folder, 'db', 'labels.json'))) throw error
  }
  return folder
}
