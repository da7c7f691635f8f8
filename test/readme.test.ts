import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { CookieJar, formPost, request, ROOT } from './support/server-process.ts'
import { tempStorage } from './helper.ts'
import { freePort } from './support/ports.ts'

function readmeCommand(marker: string): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const match = new RegExp(`<!-- ${marker} -->\\s*\`\`\`(?:sh|bash)?\\n([^\\n]+)\\n\`\`\``).exec(readme)
  assert.ok(match, `README has a ${marker} command`)
  return match[1]!.trim()
}

test('a new user can clone the repository, run the README command, and go through first run, sign out and sign in', { timeout: 900_000 }, async (t) => {
  const dir = join(tempStorage(t), 'campfire')
  execFileSync('git', ['clone', '--quiet', ROOT, dir])
  const command = readmeCommand('setup-and-run')
  const port = await freePort()
  const child = spawn('sh', ['-c', command], { cwd: dir, env: { ...process.env, HTTP_PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  let log = ''
  child.stdout.on('data', (chunk) => (log += chunk))
  child.stderr.on('data', (chunk) => (log += chunk))
  t.after(() => {
    try {
      process.kill(-child.pid!, 'SIGTERM')
    } catch {}
  })

  const base = `http://localhost:${port}`
  const deadline = Date.now() + 840_000
  for (;;) {
    assert.equal(child.exitCode, null, `the README command exited early:\n${log}`)
    const up = await fetch(`${base}/up`).catch(() => null)
    if (up?.status === 200) break
    assert.ok(Date.now() < deadline, `the server never answered /up:\n${log}`)
    await new Promise((resolve) => setTimeout(resolve, 500))
  }

  const jar = new CookieJar()
  assert.equal((await request(base, jar, '/session/new')).headers.get('location'), '/first_run')
  const firstRun = await request(base, jar, '/first_run', formPost({ 'user[name]': 'Ada Lovelace', 'user[email_address]': 'ada@example.com', 'user[password]': 'analytical engine' }))
  assert.equal(firstRun.status, 302)
  assert.ok(jar.has('session_token'))
  assert.match((await request(base, jar, '/')).headers.get('location') ?? '', /^\/rooms\/\d+$/)

  const signOut = await request(base, jar, '/session', formPost({ _method: 'delete' }))
  assert.equal(signOut.status, 302)
  assert.equal((await request(base, jar, '/')).headers.get('location'), '/session/new')

  const signIn = await request(base, jar, '/session', formPost({ email_address: 'ada@example.com', password: 'analytical engine' }))
  assert.equal(signIn.status, 302)
  assert.match((await request(base, jar, '/')).headers.get('location') ?? '', /^\/rooms\/\d+$/)
  assert.ok(readFileSync(join(dir, 'storage', 'db', 'production.sqlite3')).length > 0, 'the database lives under storage/')
})
