import { test } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { codeCachePath, type Bundle } from '../../server/lib/code-cache.ts'
import { projectPath } from '../../server/lib/paths.ts'
import { tempStorage } from '../helper.ts'

// A small CommonJS file that counts its runs and exports what it was handed.
function bundleIn(folder: string, digest = 'aaaa'): Bundle {
  const file = join(folder, 'server.cjs')
  writeFileSync(file, [
    'const counts = (globalThis.__codeCacheRuns ??= {})',
    'counts[__filename] = (counts[__filename] ?? 0) + 1',
    'function answer(n) { return n * 6 }',
    'module.exports.answer = answer(7)',
    'globalThis.__codeCacheExports = { exports: module.exports, require: typeof require, dirname: __dirname }',
  ].join('\n'))
  return { file, digest, encoding: 'latin1' }
}

// One start in a process of its own (V8 keeps what it compiled for the life of a process, so a
// second run in this one would not read the cache at all): what the code cache did before and
// after the start settled, and the bundle's exports.
function start(bundle: Bundle, options: { enabled?: boolean; settle?: boolean } = {}): { before: string; after: string; exports: unknown; path: string } {
  const code = `
    import { codeCachePath, codeCacheReport, runBundle, settled } from ${JSON.stringify(pathToFileURL(projectPath('server', 'lib', 'code-cache.ts')).href)}
    runBundle(${JSON.stringify(bundle)}, ${options.enabled !== false})
    const before = codeCacheReport().state
    if (${options.settle !== false}) settled()
    console.log(JSON.stringify({ before, after: codeCacheReport().state, exports: globalThis.__codeCacheExports, path: codeCachePath(${JSON.stringify(bundle)}) }))`
  const output = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: projectPath(), encoding: 'utf8' })
  const { path, ...seen } = JSON.parse(output.trim().split('\n').at(-1)!) as { before: string; after: string; exports: unknown; path: string }
  return { ...seen, path }
}

test('a start that finds no cache runs the bundle, and writes a cache once the server has settled', (t) => {
  const bundle = bundleIn(tempStorage(t))
  const unsettled = start(bundle, { settle: false })
  assert.deepEqual({ ...unsettled, path: undefined }, { path: undefined, before: 'missing', after: 'missing', exports: { exports: { answer: 42 }, require: 'function', dirname: join(bundle.file, '..') } })
  assert.equal(existsSync(join(bundle.file, '..', 'code-cache')), false, 'nothing is written before the server settles')
  assert.equal(start(bundle).after, 'written')
  assert.equal(readdirSync(join(bundle.file, '..', 'code-cache')).length, 1)
})

test('the next start runs the bundle from the cache, as a CommonJS module, and does not write it again', (t) => {
  const bundle = bundleIn(tempStorage(t))
  start(bundle)
  const [written] = readdirSync(join(bundle.file, '..', 'code-cache'))
  const before = readFileSync(join(bundle.file, '..', 'code-cache', written!))
  const next = start(bundle)
  assert.deepEqual({ ...next, path: undefined }, { path: undefined, before: 'used', after: 'used', exports: { exports: { answer: 42 }, require: 'function', dirname: join(bundle.file, '..') } })
  assert.deepEqual(readFileSync(join(bundle.file, '..', 'code-cache', written!)), before)
})

test('a cache V8 refuses (garbage, or another V8’s) is not used: the bundle still runs, and settling writes a good one', (t) => {
  const bundle = bundleIn(tempStorage(t))
  start(bundle)
  const [written] = readdirSync(join(bundle.file, '..', 'code-cache'))
  writeFileSync(join(bundle.file, '..', 'code-cache', written!), randomBytes(4096))
  const refused = start(bundle)
  assert.equal(refused.before, 'rejected')
  assert.equal(refused.after, 'written')
  assert.deepEqual((refused.exports as { exports: unknown }).exports, { answer: 42 })
  assert.equal(start(bundle).before, 'used')
})

test('each bundle, node version and set of node flags has a cache of its own', (t) => {
  const folder = tempStorage(t)
  const first = bundleIn(folder, 'aaaa')
  const rebuilt = { ...first, digest: 'bbbb' }
  assert.notEqual(codeCachePath(first, []), codeCachePath(rebuilt, []), 'another build of the same length never reads this one')
  assert.notEqual(codeCachePath(first, []), codeCachePath(first, ['--max-semi-space-size=8']), 'V8 refuses a cache made under other flags')
  assert.notEqual(codeCachePath(first, [], ''), codeCachePath(first, [], '--max-old-space-size=512'), 'NODE_OPTIONS counts as flags')
  assert.equal(codeCachePath(first, ['--enable-source-maps']), codeCachePath(first, ['--enable-source-maps']))
  assert.equal(join(codeCachePath(first), '..'), join(folder, 'code-cache'))
  const { path } = start(first)
  assert.deepEqual(readdirSync(join(folder, 'code-cache')), [basename(path)], 'a start writes the cache its own flags name')
})

test('CAMPFIRE_CODE_CACHE=off neither reads nor writes a cache', (t) => {
  const bundle = bundleIn(tempStorage(t))
  assert.deepEqual(start(bundle, { enabled: false }).after, 'off')
  assert.equal(existsSync(join(bundle.file, '..', 'code-cache')), false)
  start(bundle)
  assert.equal(start(bundle, { enabled: false }).before, 'off')
})

test('a folder the server cannot write to means no cache, and the server runs on', (t) => {
  const folder = tempStorage(t)
  const bundle = bundleIn(folder)
  // code-cache/ cannot be made where a file of that name is.
  writeFileSync(join(folder, 'code-cache'), 'not a folder')
  const run = start(bundle)
  assert.equal(run.after, 'unwritable')
  assert.deepEqual((run.exports as { exports: unknown }).exports, { answer: 42 })
})
