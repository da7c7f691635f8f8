import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { basename, dirname, join } from 'node:path'
import { Script } from 'node:vm'

// Runs the compiled server (one CommonJS file) with V8's code cache: the bytecode of every
// function the last start compiled, kept beside the bundle, so the next start neither parses the
// 2.6 MB file nor compiles the functions a start runs. Node 20 has no compile cache of its own
// (NODE_COMPILE_CACHE came in Node 22), so this is vm.Script's cachedData, as V8 documents it.
//
// V8 checks a cache against its own version, its flags and the source's length, and rejects one
// that does not match (the start then compiles as usual). A bundle of the same length but other
// code would pass that check, so each cache is named by the bundle's digest (the build's), and by
// the node version and flags it was made under: a start under other flags finds none and makes
// its own. The server says when it has settled after listening (settled(), from main.ts); a start
// that found no usable cache writes one then, renamed into place so that a start reading it at
// the same time (a cluster's workers) sees the whole file or none. A folder it cannot write to
// (a read-only image) means no cache, nothing else.

export type CodeCacheState = 'used' | 'written' | 'rejected' | 'missing' | 'off' | 'unwritable'

// What the code cache did for this start, and, once written, what writing it took: the event loop
// waits for V8 to serialize the cache, once per build and flags.
export interface CodeCacheReport {
  state: CodeCacheState
  written?: { bytes: number; ms: number }
}

// Shared by the launcher's copy of this module and the server's own (each bundles one).
const REPORT = Symbol.for('campfire.codeCache.report')
const SETTLED = Symbol.for('campfire.codeCache.settled')
type Shared = Record<symbol, unknown>

export interface Bundle {
  file: string
  digest: string
  // How the build found its bytes: 'latin1' when all are ASCII (read without decoding UTF-8).
  encoding: 'latin1' | 'utf8'
}

// Where a start of this node, under these flags, keeps its cache of the bundle.
export function codeCachePath(bundle: Bundle, execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): string {
  const flags = createHash('sha256').update(JSON.stringify([process.version, process.arch, execArgv, nodeOptions])).digest('hex').slice(0, 16)
  return join(dirname(bundle.file), 'code-cache', `${basename(bundle.file)}-${bundle.digest}-${flags}.bin`)
}

// Runs the bundle as Node runs a CommonJS file, from its cache when there is a usable one.
export function runBundle(bundle: Bundle, enabled = process.env.CAMPFIRE_CODE_CACHE?.trim().toLowerCase() !== 'off'): void {
  const source = readFileSync(bundle.file, bundle.encoding)
  const cachePath = codeCachePath(bundle)
  const cachedData = enabled ? readIfThere(cachePath) : undefined
  const script = new Script(wrap(source), { filename: bundle.file, cachedData, lineOffset: -1 })
  const state: CodeCacheState = !enabled ? 'off' : cachedData === undefined ? 'missing' : script.cachedDataRejected ? 'rejected' : 'used'
  const shared = globalThis as unknown as Shared
  shared[REPORT] = { state } satisfies CodeCacheReport
  if (state === 'missing' || state === 'rejected') {
    shared[SETTLED] = () => {
      shared[SETTLED] = undefined
      const started = performance.now()
      const data = script.createCachedData()
      const written = writeCache(cachePath, data)
      shared[REPORT] = (written === 'written' ? { state: written, written: { bytes: data.length, ms: performance.now() - started } } : { state: written }) satisfies CodeCacheReport
    }
  }
  const module = { exports: {}, id: bundle.file, filename: bundle.file, loaded: false }
  const run = script.runInThisContext() as (exports: object, require: NodeRequire, module: object, filename: string, dirname: string) => void
  run.call(module.exports, module.exports, createRequire(bundle.file), module, bundle.file, dirname(bundle.file))
}

// Node's wrapper of a CommonJS file, on a line of its own (lineOffset -1): the file's lines and
// columns stay its own, which its source map needs.
function wrap(source: string): string {
  return `(function (exports, require, module, __filename, __dirname) {\n${source}\n})`
}

function readIfThere(path: string): Buffer | undefined {
  try {
    return readFileSync(path)
  } catch {
    return undefined
  }
}

function writeCache(path: string, data: Buffer): CodeCacheState {
  const scratch = `${path}.${process.pid}`
  try {
    mkdirSync(dirname(path), { recursive: true })
    writeFileSync(scratch, data)
    renameSync(scratch, path)
    return 'written'
  } catch {
    return 'unwritable'
  }
}

// Called by the server once it has listened and settled: the moment the functions a start and
// its first requests need are compiled, and a cache of them is worth writing.
export function settled(): void {
  const write = (globalThis as unknown as Shared)[SETTLED] as (() => void) | undefined
  write?.()
}

// What the code cache did for this start (undefined when the server runs from its sources).
export function codeCacheReport(): CodeCacheReport | undefined {
  return (globalThis as unknown as Shared)[REPORT] as CodeCacheReport | undefined
}
