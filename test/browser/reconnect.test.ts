import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { join } from 'node:path'
import { projectPath } from '../../server/lib/paths.ts'
import { postMessage } from '../../server/models/message/posting.ts'
import { Store } from '../../server/models/store.ts'
import { chromiumAvailable, launchBrowser, openTab, signIn, waitUntilLive } from './support/browser.ts'
import { startCampfire, type Campfire } from './support/campfire.ts'

// While the server restarts the page cannot hear anything; when its socket comes back it asks
// /rooms/:id/refresh for what it missed.
describe('after a server restart', { skip: !chromiumAvailable() && 'chromium is not installed' }, () => {
  test('the room page reconnects and catches up on messages posted while it was away', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    const roomId = Number(campfire.labels['rooms.watercooler'])
    const david = await openTab(browser, campfire.baseUrl)
    await signIn(david, 'david@37signals.com')
    await david.page.goto(`/rooms/${roomId}`)
    await waitUntilLive(david.page)
    await david.page.waitForLoadState('networkidle')
    const settled = david.problems.length

    const refresh = david.page.waitForRequest((r) => /\/rooms\/\d+\/refresh\?since=\d+&reason=reconnection/.test(r.url()), { timeout: 60_000 })
    // Jason's message is written while the server is down, so the page can only learn of it
    // by catching up once its socket is back.
    await campfire.restart(() => postWhileStopped(campfire, roomId, 'Posted during the restart'))
    await refresh
    await david.page.locator('#message-area .message', { hasText: 'Posted during the restart' }).waitFor()
    await david.page.locator('turbo-cable-stream-source[connected]').first().waitFor({ state: 'attached' })

    // While the server is down, the socket and any request in flight are refused (or answered
    // 503 while it shuts down); that is expected. A page error, or anything else, is not.
    const expected = /WebSocket connection to .* failed|ERR_CONNECTION_REFUSED|status of 503|^HTTP 503 /
    assert.deepEqual(david.problems.slice(0, settled), [])
    assert.deepEqual(david.problems.slice(settled).filter((p) => !expected.test(p)), [])
  })
})

function postWhileStopped(campfire: Campfire, roomId: number, text: string): void {
  const store = new Store({ path: join(campfire.storage, 'db', 'production.sqlite3'), migrationsDir: projectPath('migrations') })
  try {
    store.writeNow((m) => {
      const jason = m.db.prepare<[string], { id: number }>('SELECT id FROM users WHERE email_address = ?').get('jason@37signals.com')!
      postMessage(m, { roomId, creatorId: jason.id, clientMessageId: `restart-${Date.now()}`, body: `<div>${text}</div>`, plainText: text })
    })
  } finally {
    store.close()
  }
}
