import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { LEDGER_ENABLED, lap } from '../../server/lib/cpu-ledger.ts'

const LEDGER = fileURLToPath(new URL('../../server/lib/cpu-ledger.ts', import.meta.url))

// Runs `body` in a fresh process (the ledger reads its variable once, at load) and returns what
// it printed as JSON.
function inProcess(env: Record<string, string>, body: string): unknown {
  const script = `import * as ledger from ${JSON.stringify(LEDGER)}\n${body}`
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env: { ...process.env, ...env }, encoding: 'utf8' })
  return JSON.parse(out)
}

// Spends `ms` of this process's CPU time (not wall time: the machine may be shared).
const BURN = `function burn(ms) { const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000 }; const end = cpu() + ms; let x = 0; while (cpu() < end) x += Math.sqrt(x + 1); return x }`

test('the ledger is off unless CAMPFIRE_CPU_LEDGER=1, and then charges nothing and publishes nothing', () => {
  assert.equal(LEDGER_ENABLED, process.env.CAMPFIRE_CPU_LEDGER === '1')
  const figures = inProcess({ CAMPFIRE_CPU_LEDGER: '' }, `${BURN}
    const a = ledger.account('a'); const was = ledger.enter(a); burn(30); ledger.enter(was); ledger.tally(a)
    console.log(JSON.stringify({ a: a.us, count: a.count, published: Symbol.for('campfire.cpu-ledger') in globalThis }))`)
  assert.deepEqual(figures, { a: 0, count: 0, published: false })
})

test('CPU spent while an account is current is charged to it, nested parts to their own, and the rest to rest', () => {
  const figures = inProcess({ CAMPFIRE_CPU_LEDGER: '1' }, `${BURN}
    ledger.lap()
    const outer = ledger.account('outer'), inner = ledger.account('inner')
    const was = ledger.enter(outer); burn(60)
    const back = ledger.enter(inner); ledger.tally(inner, 3); burn(40); ledger.enter(back)
    burn(20); ledger.enter(was)
    burn(30)
    const own = new ledger.Account(''); ledger.enter(own); burn(25); ledger.enter(ledger.REST); ledger.settleInto(own, ledger.account('request'))
    console.log(JSON.stringify(globalThis[Symbol.for('campfire.cpu-ledger')].lap()))`) as Record<string, { ms: number; count: number }>
  // Each part holds its own share and no other's (outer 60 + 20, inner 40).
  assert.ok(figures.outer!.ms >= 79 && figures.outer!.ms < 95, `outer ${figures.outer!.ms}`)
  assert.ok(figures.inner!.ms >= 39 && figures.inner!.ms < 55, `inner ${figures.inner!.ms}`)
  assert.equal(figures.inner!.count, 3)
  assert.ok(figures.rest!.ms >= 20, `rest ${figures.rest!.ms}`)
  assert.ok(figures.request!.ms >= 20 && figures.request!.count === 1, `request ${JSON.stringify(figures.request)}`)
  assert.ok('gc' in figures)
})

test('a lap starts the next from zero', () => {
  lap()
  const figures = lap()
  assert.equal(Object.keys(figures).filter((name) => name !== 'gc' && figures[name]!.ms > 0).length, LEDGER_ENABLED ? Object.keys(figures).length - 1 : 0)
})
