import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { busyStretches, describeStalls, summarizeProfile } from './support/cpu-profile.ts'

// A profile sampled every millisecond: node 2 is the idle loop, 3 and 4 are work.
function profile(samples: number[]) {
  const frame = (functionName: string) => ({ functionName, url: '', lineNumber: 0, columnNumber: 0 })
  return {
    nodes: [
      { id: 1, callFrame: frame('(root)'), children: [2, 3] },
      { id: 2, callFrame: frame('(idle)') },
      { id: 3, callFrame: frame('flushFrom'), children: [4] },
      { id: 4, callFrame: frame('writeBuffer') },
    ],
    startTime: 0,
    endTime: samples.length * 1000,
    samples,
    timeDeltas: samples.map(() => 1000),
  }
}

test('the stretches a thread spent without going back to its loop are found by their length', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'profile-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'CPU.cpuprofile')
  const samples = [2, 2, ...Array(60).fill(4), 2, 3, 3, 2, ...Array(120).fill(3), 2, 2]
  writeFileSync(file, JSON.stringify(profile(samples)))
  const stretches = busyStretches(file, 50)
  assert.equal(stretches.length, 2, 'the two-sample stretch is left out')
  assert.deepEqual(stretches.map((s) => (s.toUs - s.fromUs) / 1000), [60, 120])
  const stalls = describeStalls(dir, dir, 50)
  assert.equal(stalls.stretches, 2)
  assert.equal(stalls.longest_ms, 120)
  assert.match(stalls.lines.join('\n'), /flushFrom/)
  assert.match(stalls.lines.join('\n'), /writeBuffer/)
})

test('a frame in a compiled file with a source map beside it is named by its source, line and all', async (t) => {
  const folder = mkdtempSync(join(tmpdir(), 'campfire-prof-'))
  t.after(() => rmSync(folder, { recursive: true, force: true }))
  const source = join(folder, 'room-page.ts')
  writeFileSync(source, ['export function header(): string {', '  return "a"', '}', '', 'export function assemble(parts: string[]): string {', '  return parts.join("")', '}', 'console.log(header(), assemble(["b"]))'].join('\n'))
  const bundle = join(folder, 'server.cjs')
  const { build } = await import('esbuild')
  await build({ entryPoints: [source], outfile: bundle, bundle: true, platform: 'node', format: 'cjs', minifyWhitespace: true, sourcemap: true, logLevel: 'warning' })
  // Where esbuild put assemble(): V8 names a function's frame by where its text starts.
  const lines = readFileSync(bundle, 'utf8').split('\n')
  const line = lines.findIndex((text) => text.includes('function assemble('))
  const column = lines[line]!.indexOf('function assemble(')
  const frame = (functionName: string, url = '', at = [0, 0]) => ({ functionName, url, lineNumber: at[0]!, columnNumber: at[1]! })
  const profileFile = join(folder, 'server.cpuprofile')
  writeFileSync(profileFile, JSON.stringify({
    nodes: [
      { id: 1, callFrame: frame('(root)'), children: [2] },
      { id: 2, callFrame: frame('assemble', bundle, [line, column]) },
    ],
    startTime: 0,
    endTime: 3000,
    samples: [2, 2, 2],
    timeDeltas: [1000, 1000, 1000],
  }))
  const summary = summarizeProfile(profileFile, folder)
  assert.equal(summary.top_self[0]!.frame, 'assemble room-page.ts:5')
})
