import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { defaultLogFormat, lineFormatter, logStream } from '../../server/lib/log-format.ts'

const LINE = JSON.stringify({ level: 40, time: Date.UTC(2026, 11, 4, 18, 30, 5, 250), pid: 1234, hostname: 'box', worker: 2, msg: 'worker 2 died' })

test('a terminal gets readable lines by default and anything else JSON', () => {
  assert.equal(defaultLogFormat(true), 'pretty')
  assert.equal(defaultLogFormat(false), 'json')
})

test('JSON lines are written as they are, and without a stream of their own', () => {
  assert.equal(lineFormatter('json')(LINE), LINE)
  assert.equal(logStream('json'), undefined)
})

test('a readable line has the time, the level, the message and the fields, but not the pid or host', () => {
  const line = lineFormatter('pretty')(LINE + '\n').replace(/\x1b\[[0-9;]*m/g, '')
  assert.match(line, /^\[\d\d:\d\d:05\.250\] WARN: worker 2 died \{"worker":2\}\n$/)
  assert.ok(!line.includes('1234') && !line.includes('box'), line)
})

test("Fastify's logger writes readable lines through the pretty stream, before the process exits", () => {
  const script = `
    import Fastify from 'fastify'
    import { logStream } from './server/lib/log-format.ts'
    const app = Fastify({ logger: { level: 'info', stream: logStream('pretty') } })
    app.log.info({ room: 7 }, 'posted a message')
    process.exit(0)`
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } })
  assert.equal(run.status, 0, run.stderr)
  assert.match(run.stdout, /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: posted a message \{"room":7\}\n$/)
})
