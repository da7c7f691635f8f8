import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from './support/server-process.ts'

test('npm ci installs every locked package on the Node package.json claims, without an engine warning', () => {
  const claimed = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node
  assert.equal(claimed, '>=20')
  // --dry-run checks the lock against this Node (20 here) and installs nothing.
  const result = spawnSync('npm', ['ci', '--dry-run', '--no-audit', '--no-fund'], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 })
  assert.equal(result.status, 0, result.stderr)
  assert.doesNotMatch(result.stdout + result.stderr, /EBADENGINE/)
})

test('npm start -- --help and npm run dev -- --help print the server help and exit 0, building and starting nothing', () => {
  for (const script of [['start'], ['run', 'dev']]) {
    const started = Date.now()
    const result = spawnSync('npm', [...script, '--', '--help'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000, env: { ...process.env, HTTP_PORT: '1' } })
    assert.equal(result.status, 0, result.stderr)
    assert.match(result.stdout, /Usage: npm start /)
    assert.match(result.stdout, /docs\/configuration\.md/)
    assert.doesNotMatch(result.stdout + result.stderr, /compiled the server|assets: |Server listening|migrated/, `${script.join(' ')} built or started nothing`)
    assert.ok(Date.now() - started < 30_000)
  }
})
