import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { projectPath } from '../../server/lib/paths.ts'
import { generateBlobKey } from '../../server/lib/uploads.ts'
import { Store } from '../../server/models/store.ts'
import { loadFixtures, PASSWORD, rooms, users } from '../fixtures.ts'
import { SECRET_KEY_BASE, tempStorage } from '../helper.ts'
import { grayPng } from '../support/images.ts'
import { multipart } from '../support/multipart.ts'
import { CookieJar, formPost, request, ROOT, startServer, stopServer } from '../support/server-process.ts'

const run = promisify(execFile)
const UPLOADERS = 3
const UPLOADING_MS = 15_000
const TWO_HOURS_AGO = (Date.now() - 2 * 60 * 60 * 1000) / 1000

// A file in the files folder, last written two hours ago or just now.
function plant(path: string, old: boolean): string {
  mkdirSync(join(path, '..'), { recursive: true })
  writeFileSync(path, 'left here')
  if (old) utimesSync(path, TWO_HOURS_AGO, TWO_HOURS_AGO)
  return path
}

function layoutPath(filesPath: string, key: string): string {
  return join(filesPath, key.slice(0, 2), key.slice(2, 4), key)
}

test('npm run doctor -- --fix run over and over beside a server taking uploads deletes no acknowledged file, only old strays our layout wrote', { timeout: 180_000 }, async (t) => {
  const storage = tempStorage(t)
  const filesPath = join(storage, 'files')
  const store = new Store({ path: join(storage, 'db', 'production.sqlite3'), migrationsDir: projectPath('migrations') })
  store.writeNow((m) => loadFixtures(m.db))
  store.close()
  const server = await startServer({ CAMPFIRE_STORAGE_PATH: storage, SECRET_KEY_BASE, DISABLE_SSL: 'true', CAMPFIRE_MIN_FREE_MB: '0' })
  t.after(() => stopServer(server))

  const oldStray = plant(layoutPath(filesPath, generateBlobKey()), true)
  const oldUpload = plant(join(filesPath, 'tmp', `${generateBlobKey()}.upload`), true)
  const youngStray = plant(layoutPath(filesPath, generateBlobKey()), false)
  const readme = plant(join(filesPath, 'README.txt'), true)
  const notes = plant(join(filesPath, 'ab', 'cd', 'notes.txt'), true)
  const misplaced = plant(join(filesPath, 'zz', 'zz', generateBlobKey()), true)

  const jar = new CookieJar()
  const signedIn = await request(server.baseUrl, jar, '/session', formPost({ email_address: users.david.email!, password: PASSWORD }))
  assert.equal(signedIn.status, 302)

  // Uploaders post images (each made into a thumbnail before its row commits, as a browser's
  // would be) while the doctor runs with --fix, one run after another.
  let uploading = true
  const acknowledged: string[] = []
  const uploader = async (n: number) => {
    for (let i = 0; uploading; i++) {
      const { payload, headers } = multipart([{ name: 'message[attachment]', filename: `u${n}-${i}.png`, type: 'image/png', data: grayPng(600 + n, 400 + (i % 200)) }], { accept: 'text/vnd.turbo-stream.html' })
      const response = await request(server.baseUrl, jar, `/rooms/${rooms.hq.id}/messages`, { method: 'POST', body: new Uint8Array(payload), headers })
      const body = await response.text()
      assert.equal(response.status, 200, body.slice(0, 200))
      const link = /href="(\/rails\/active_storage\/blobs\/[^"]+)"/.exec(body)?.[1]
      assert.ok(link, `the message links its file: ${body.slice(0, 300)}`)
      acknowledged.push(link.replaceAll('&amp;', '&'))
    }
  }
  const uploads = Array.from({ length: UPLOADERS }, (_, n) => uploader(n))
  const env = { ...process.env, CAMPFIRE_STORAGE_PATH: storage, RAILS_ENV: 'production' }
  const started = Date.now()
  let runs = 0
  let removedByRuns = 0
  while (Date.now() - started < UPLOADING_MS) {
    const { stdout } = await run('node', ['--import', 'tsx', 'server/admin/doctor.ts', '--fix'], { cwd: ROOT, env })
    removedByRuns += Number(/and (\d+) stray files?/.exec(stdout)?.[1] ?? 0)
    runs++
  }
  uploading = false
  await Promise.all(uploads)

  const missing: string[] = []
  for (const link of acknowledged) {
    const response = await request(server.baseUrl, jar, link)
    await response.arrayBuffer()
    // The blob's link redirects to its file, which is then served.
    const served = response.status === 302 ? await request(server.baseUrl, jar, response.headers.get('location')!.replace(server.baseUrl, '')) : response
    if (served.status !== 200) missing.push(`${link}: ${served.status}`)
  }
  t.diagnostic(`${runs} doctor runs beside ${acknowledged.length} uploads; ${removedByRuns} stray files removed by them`)
  assert.ok(runs >= 3 && acknowledged.length >= 20, `${runs} runs, ${acknowledged.length} uploads`)
  assert.deepEqual(missing, [], 'every acknowledged attachment is still served')

  assert.equal(existsSync(oldStray), false, 'a stray our layout wrote, untouched for two hours, is removed')
  assert.equal(existsSync(oldUpload), false, 'and so is an upload a crash left in tmp/')
  assert.equal(removedByRuns, 2)
  assert.ok(existsSync(youngStray), 'a file written just now may still be waiting for its row')
  for (const kept of [readme, notes, misplaced]) assert.ok(existsSync(kept), `${kept} is not a name our layout writes, so it is left alone`)
})
