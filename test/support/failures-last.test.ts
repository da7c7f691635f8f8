import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { promisify } from 'node:util'

const run = promisify(execFile)

// A run started inside a test would otherwise report to this one instead of printing.
function withoutTestContext(): NodeJS.ProcessEnv {
  const env = { ...process.env }
  delete env.NODE_TEST_CONTEXT
  return env
}

test('the failures-last reporter ends a run by naming each failed test, its file and its error, and nothing else', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'failures-last-'))
  try {
    const file = join(folder, 'sample.test.mjs')
    writeFileSync(file, [
      "import test, { describe } from 'node:test'",
      "test('a passing test', () => {})",
      "describe('a group', () => { test('a failing inner test', () => { throw new Error('inner went wrong') }) })",
      "test('a failing test', () => { throw new Error('outer went wrong') })",
    ].join('\n'))
    const answer = await run(process.execPath, ['--test', '--test-reporter=./test/support/failures-last.mjs', '--test-reporter-destination=stdout', file], { env: withoutTestContext() })
      .catch((error: { stdout: string }) => error)
    const lines = answer.stdout.trim().split('\n')
    assert.equal(lines[0], '# 3 tests, 2 failed')
    assert.match(answer.stdout, /✗ .*sample\.test\.mjs: a failing inner test\n {4}Error: inner went wrong/)
    assert.match(answer.stdout, /✗ .*sample\.test\.mjs: a failing test\n {4}Error: outer went wrong/)
    assert.doesNotMatch(answer.stdout, /a passing test|node:internal/)
  } finally {
    rmSync(folder, { recursive: true, force: true })
  }
})
