import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from '../../support/server-process.ts'

export interface ScriptResult {
  code: number | null
  stdout: string
  stderr: string
}

// Runs server/admin/<name>.ts as its npm script does (through tsx), in its own process.
// input: what standard input holds (a pipe closed after it); without it, stdin is /dev/null.
export function runAdmin(name: string, args: string[], env: Record<string, string>, input?: string): Promise<ScriptResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', join('server', 'admin', `${name}.ts`), ...args], {
    cwd: ROOT,
    env: { ...process.env, CAMPFIRE_STORAGE_PATH: '', RAILS_ENV: '', ...env },
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (chunk) => (stdout += chunk))
  child.stderr!.on('data', (chunk) => (stderr += chunk))
  if (input !== undefined) child.stdin!.end(input)
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

// --help and -h answer with the usage, exit 0 and leave the storage folder (and any other
// folder named on the line) as it was: here, not there at all.
export async function assertHelpWritesNothing(name: string, storage: string, args: string[] = [], untouched: string[] = []): Promise<void> {
  for (const help of ['--help', '-h']) {
    const result = await runAdmin(name, [...args, help, '--no-such-option'], { CAMPFIRE_STORAGE_PATH: storage })
    assert.equal(result.code, 0, result.stderr)
    assert.match(result.stdout, new RegExp(`^Usage: npm run ${name}\\b`))
    assert.match(result.stdout, /-h, --help/)
    assert.equal(result.stderr, '')
    for (const path of [storage, ...untouched]) assert.ok(!existsSync(path) || readdirSync(path).length === 0, `${help} wrote into ${path}`)
  }
}
