import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import { buildTestApp, signIn } from '../../helper.ts'
import { get } from '../rooms/support.ts'

// The help inside the bell's "Notifications aren't allowed" dialog: steps for the browser and
// system the User-Agent names, as a frame of its own.
const AGENTS = {
  macChrome: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  windowsFirefox: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0',
  macSafari: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
  iphoneSafari: 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1',
  androidChrome: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
}

async function help(t: TestContext, agent: string) {
  const { app } = await buildTestApp(t)
  const response = await get(app, await signIn(app, 'jz'), '/users/me/notification_help', { 'user-agent': agent, 'turbo-frame': 'notification_help' })
  assert.equal(response.statusCode, 200)
  assert.match(response.body, /^<turbo-frame id="notification_help"/m)
  return response.body
}

test('Chrome on a Mac is told to allow the site in Chrome, then Chrome in macOS’s System Settings', async (t) => {
  const body = await help(t, AGENTS.macChrome)
  assert.match(body, /Check your Chrome settings/)
  assert.match(body, /site information/)
  assert.match(body, /Allow Chrome to show notifications on macOS/)
  assert.match(body, /System Settings/)
  assert.doesNotMatch(body, /<nav id="nav">/, 'a frame, not a page')
})

test('Firefox on Windows is sent to Privacy & Security for this site, and to Windows’ notification settings', async (t) => {
  const body = await help(t, AGENTS.windowsFirefox)
  assert.match(body, /Check your Firefox settings/)
  assert.match(body, /Privacy &amp; Security/)
  assert.match(body, /System › Notifications/)
})

test('Safari on a Mac is sent to Safari’s Websites settings for this origin', async (t) => {
  const body = await help(t, AGENTS.macSafari)
  assert.match(body, /Safari › Settings/)
  assert.match(body, /<em>http:\/\/localhost(:\d+)?\/<\/em>/)
})

test('an iPhone gets no browser section, only the installed app’s settings and the Home Screen steps', async (t) => {
  const body = await help(t, AGENTS.iphoneSafari)
  assert.doesNotMatch(body, /Check your Safari settings/)
  assert.match(body, /Check your iOS settings/)
  assert.match(body, /Add to Home Screen/)
})

test('Chrome on Android is told where Chrome’s notification settings are', async (t) => {
  const body = await help(t, AGENTS.androidChrome)
  assert.match(body, /Check your Chrome settings/)
  assert.match(body, /Web apps/)
  assert.match(body, /Check your Android settings/)
})
