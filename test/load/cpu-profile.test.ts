import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { busyStretches, describeStalls } from './support/cpu-profile.ts'

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
