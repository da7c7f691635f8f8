import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { compileServer } from '../../server/build/server.ts'
import { projectPath } from '../../server/lib/paths.ts'
import { pruneOlderThanADay } from '../../server/lib/prune-old-entries.ts'
import { sourceDigest } from './source-digest.ts'

// The server as `npm start` runs it (one esbuild bundle, no TypeScript loader), compiled from the
// sources as they are now into tmp/test-server/<digest of the sources>/. A test process that
// starts servers compiles it once; the next file finds it there while no source has changed.
// Booting it takes a fraction of what `node --import tsx server/main.ts` takes, whose loader
// resolves and loads hundreds of modules in the server and in each of its worker threads.
let compiled: Promise<string> | null = null

// The bundle's main.js.
export function compiledServer(): Promise<string> {
  compiled ??= compile()
  return compiled
}

// The bundle's workers/ folder, for buildApp's compiledWorkers: the piscina threads of an app
// built in the test's own process then start in a few milliseconds, without the TypeScript loader.
export async function compiledWorkers(): Promise<string> {
  return join(dirname(await compiledServer()), 'workers')
}

async function compile(): Promise<string> {
  const parent = projectPath('tmp', 'test-server')
  const folder = join(parent, sourceDigest(['server', 'package.json', 'package-lock.json']))
  if (existsSync(join(folder, 'main.js'))) return join(folder, 'main.js')
  mkdirSync(parent, { recursive: true })
  pruneOlderThanADay(parent)
  // Compiled beside it and renamed into place, so a file running at the same time never starts a half-written bundle.
  const scratch = `${folder}.${process.pid}`
  rmSync(scratch, { recursive: true, force: true })
  await compileServer(scratch, { admin: false })
  try {
    renameSync(scratch, folder)
  } catch (error) {
    rmSync(scratch, { recursive: true, force: true })
    if (!existsSync(join(folder, 'main.js'))) throw error
  }
  return join(folder, 'main.js')
}
