import { test } from 'node:test'
import assert from 'node:assert/strict'
import { request } from 'node:http'
import { buildApp } from '../../../server/app.ts'
import { RateLimit } from '../../../server/lib/rate-limit.ts'
import { loadFixtures, rooms, type UserName } from '../../fixtures.ts'
import { signIn, tempStorage, testConfig } from '../../helper.ts'
import { compiledWorkers } from '../../support/compiled-server.ts'
import { connect, identifiers } from '../../cable/cable-helper.ts'
import { POST_HEADERS } from './support.ts'

const APP_URL = 'https://campfire.example.com'

// Posts over a real socket with a Host header of the poster's choosing.
function postWithHost(origin: string, host: string, cookie: string, roomId: number, text: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const posted = request(`${origin}/rooms/${roomId}/messages`, { method: 'POST', headers: { ...POST_HEADERS, host, cookie } }, (response) => {
      response.resume()
      resolve(response.statusCode ?? 0)
    })
    posted.on('error', reject)
    posted.end(new URLSearchParams({ 'message[body]': `<p>${text}</p>` }).toString())
  })
}

test('with APP_URL set, a message posted with Host: evil.example reaches the others in the room with its links at APP_URL', async (t) => {
  const config = testConfig(tempStorage(t), { APP_URL })
  const app = await buildApp({ config, logger: false, passwordCost: 4, compiledWorkers: await compiledWorkers(), signInLimit: new RateLimit(1000, 60_000) })
  t.after(() => app.close())
  app.store.writeNow((m) => loadFixtures(m.db))
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  const origin = `http://127.0.0.1:${port}`
  const cookie = (name: UserName) => signIn(app, name)
  const kevin = await connect(t, { app, url: `ws://127.0.0.1:${port}/cable`, origin, cookie }, { cookie: await cookie('kevin') })
  const stream = identifiers.roomMessages(app, 'hq')
  kevin.subscribe(stream)
  await kevin.confirmed(stream)

  const status = await postWithHost(origin, 'evil.example', await cookie('david'), rooms.hq.id, 'the new login page')
  assert.ok(status >= 200 && status < 400, `posted: ${status}`)
  await kevin.frame((frame) => frame.identifier === stream && 'message' in frame)
  const html = kevin.messages(stream).map(String).join('')
  assert.match(html, /the new login page/)
  const links = [...html.matchAll(/https?:\/\/[^\s"<>&]+/g)].map((match) => match[0])
  assert.ok(links.length > 0, 'the message carries an absolute permalink')
  for (const link of links) assert.ok(link.startsWith(`${APP_URL}/`), `${link} starts with APP_URL`)
  assert.doesNotMatch(html, /evil\.example/)
})
