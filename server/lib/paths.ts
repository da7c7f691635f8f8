import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

// Where the project's folders are, whether the server runs from its TypeScript sources
// (server/lib/paths.ts under tsx) or from the compiled bundle in dist/.
const HERE = dirname(fileURLToPath(import.meta.url))
const COMPILED = import.meta.url.endsWith('.js')

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

// A piscina worker's file: server/workers/<name>.ts from sources, dist/workers/<name>.js compiled.
export function workerUrl(name: string): string {
  const file = COMPILED ? projectPath('dist', 'workers', `${name}.js`) : projectPath('server', 'workers', `${name}.ts`)
  return pathToFileURL(file).href
}
