import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

const SERVER = resolve(import.meta.dirname, '../../server')
const CABLE = join(SERVER, 'cable')

function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name))
}

// Relative imports and re-exports, type-only ones included: a cycle of types is still a cycle
// in the design even though it vanishes at run time.
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  return [...text.matchAll(/^(?:import|export)\s[^'"]*?from\s+'(\.{1,2}\/[^']+)'/gms)].map((match) => resolve(dirname(file), match[1]!))
}

test('the cable folder has no import cycle', () => {
  const files = sources(CABLE)
  const graph = new Map(files.map((file) => [file, importsOf(file).filter((target) => target.startsWith(CABLE + '/'))]))
  const cycles: string[] = []
  const state = new Map<string, 'open' | 'done'>()
  const path: string[] = []
  const visit = (file: string): void => {
    state.set(file, 'open')
    path.push(file)
    for (const target of graph.get(file) ?? []) {
      if (state.get(target) === 'open') cycles.push([...path.slice(path.indexOf(target)), target].map((p) => relative(CABLE, p)).join(' -> '))
      else if (!state.has(target)) visit(target)
    }
    path.pop()
    state.set(file, 'done')
  }
  for (const file of files) if (!state.has(file)) visit(file)
  assert.deepEqual(cycles, [])
})

test('the cable folder imports nothing from the layers above it', () => {
  const upward = sources(CABLE).flatMap((file) =>
    importsOf(file)
      .filter((target) => ['routes', 'plugins'].some((layer) => target.startsWith(join(SERVER, layer) + '/')) || target === join(SERVER, 'app.ts'))
      .map((target) => `${relative(SERVER, file)} -> ${relative(SERVER, target)}`),
  )
  assert.deepEqual(upward, [])
})
