import { existsSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

// Where the project's folders are, whether the server runs from its TypeScript sources
// (server/lib/paths.ts under tsx) or from the compiled bundle in dist/.
const HERE = dirname(fileURLToPath(import.meta.url))
const COMPILED = !import.meta.url.endsWith('.ts')

function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`)
  }
}

export const ROOT = findRoot(HERE)

export function projectPath(...parts: string[]): string {
  return join(ROOT, ...parts)
}

// The compiled bundle's folder (dist/ for `npm start`), found from whichever of its files runs:
// main.js, server.cjs and container.js sit in it, the admin scripts, workers and shared chunks (code that
// is imported on first use, or by several entry points) one folder down.
const BUNDLE = ['admin', 'workers', 'chunks'].includes(basename(HERE)) ? dirname(HERE) : HERE

// A piscina worker's file: server/workers/<name>.ts from sources; compiled, workers/<name>.js in
// the bundle that runs (dist/, or the copy the tests compile into tmp/test-server/).
export function workerUrl(name: string): string {
  const file = COMPILED ? join(BUNDLE, 'workers', `${name}.js`) : projectPath('server', 'workers', `${name}.ts`)
  return pathToFileURL(file).href
}

// A piscina pool's worker file and node flags: workerUrl's, or, given a folder of compiled
// workers (the tests running the sources hand in one: test/support/compiled-server.ts), its
// <name>.js on a thread that starts without the process's flags, so without the TypeScript
// loader, whose start in every thread cost more than the work the tests give it.
export function workerSource(name: string, compiledWorkers?: string): { filename: string; execArgv?: string[] } {
  if (compiledWorkers === undefined) return { filename: workerUrl(name) }
  return { filename: pathToFileURL(join(compiledWorkers, `${name}.js`)).href, execArgv: [] }
}
