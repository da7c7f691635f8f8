import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import Database from 'better-sqlite3'
import type { Browser, Page } from 'playwright-core'
import { chromiumAvailable, launchBrowser, openTab, screenshot } from './support/browser.ts'
import { startCampfire, type Campfire } from './support/campfire.ts'
import { startTestProvider, type TestProvider } from '../support/oidc-provider.ts'

// Signing in with a real OpenID provider (oidc-provider on loopback, its own login page) in a
// real browser: the button, the provider's page, the room; sign-out ending the provider's
// session too; a second sign-in found by `sub` after the provider changed the email; and a new
// person from an allowed domain joining (whose picture, on loopback, the SSRF guard refuses).
describe('single sign-on in a real browser', { skip: !chromiumAvailable() && 'chromium is not installed' }, () => {
  let campfire: Campfire
  let provider: TestProvider
  let browser: Browser
  const cleanups: (() => Promise<void> | void)[] = []

  before(async () => {
    const t = { after: (fn: () => Promise<void> | void) => void cleanups.push(fn) }
    provider = await startTestProvider({ after: async (fn) => void cleanups.push(fn) })
    campfire = await startCampfire(t, provider.env({ OIDC_ALLOWED_DOMAINS: 'newcomers.test' }))
    provider.allowRedirects([new URL('/session/oidc/callback', campfire.baseUrl).href])
    browser = await launchBrowser(t)
  })

  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  })

  async function signInAtProvider(page: Page, sub: string): Promise<void> {
    await page.goto('/session/new')
    await page.getByRole('button', { name: 'Sign in with Test IdP' }).click()
    await page.waitForURL((url) => url.origin === provider.issuer)
    await page.locator('input[name="login"]').fill(sub)
    await page.locator('input[name="password"]').fill('anything')
    await Promise.all([page.waitForURL((url) => url.href.startsWith(campfire.baseUrl) && !url.pathname.startsWith('/session')), page.getByRole('button', { name: 'Sign-in' }).click()])
  }

  async function whoIsSignedIn(page: Page): Promise<string> {
    await page.goto('/users/me/profile')
    return page.locator('input[name="user[name]"]').inputValue()
  }

  test('David clicks the button, signs in on the provider page and lands in a room as himself; after signing out he comes back by sub with a new email', async () => {
    const tab = await openTab(browser, campfire.baseUrl)
    const { page } = tab
    await page.goto('/session/new')
    await screenshot(page, 'sso-sign-in')
    const button = await page.getByRole('button', { name: 'Sign in with Test IdP' }).boundingBox()
    const password = await page.getByLabel('Password').boundingBox()
    assert.ok(button && password && button.y < password.y, 'the button is above the password form')

    provider.people.set('david-sub', { email: 'david@37signals.com', email_verified: true, name: 'David' })
    await signInAtProvider(page, 'david-sub')
    assert.match(new URL(page.url()).pathname, /^\/rooms\/\d+/)
    await page.locator('#composer').waitFor()
    assert.equal(await whoIsSignedIn(page), 'David Heinemeier Hansson')
    await screenshot(page, 'sso-profile')
    assert.match(await page.locator('.oidc-identity').innerText(), /Linked to david@37signals\.com/)

    // Signing out ends the provider's session too: its own confirmation page, then back here.
    await page.getByRole('button', { name: 'Log out' }).click()
    await page.waitForURL((url) => url.origin === provider.issuer)
    await Promise.all([page.waitForURL((url) => url.href.startsWith(campfire.baseUrl)), page.locator('button[autofocus], button[type="submit"]').first().click()])
    await page.waitForURL(/\/session\/new/)

    provider.people.set('david-sub', { email: 'dhh@somewhere-else.test', email_verified: true })
    await signInAtProvider(page, 'david-sub')
    assert.equal(await whoIsSignedIn(page), 'David Heinemeier Hansson')
    assert.deepEqual(tab.problems.filter((problem) => !problem.includes(provider.issuer)), [])
    await tab.context.close()
  })

  test('a new person from an allowed domain joins and sees every open room', async () => {
    const tab = await openTab(browser, campfire.baseUrl)
    const { page } = tab
    // Her picture is on loopback, which the server's SSRF guard refuses: she joins all the same.
    const pictureHits: string[] = []
    const pictures = createServer((request, response) => {
      pictureHits.push(request.url ?? '')
      response.writeHead(200, { 'content-type': 'image/png' }).end()
    })
    await new Promise<void>((resolve) => pictures.listen(0, '127.0.0.1', resolve))
    cleanups.push(() => new Promise<void>((resolve) => pictures.close(() => resolve())))
    const picture = `http://127.0.0.1:${(pictures.address() as AddressInfo).port}/ada.png`
    provider.people.set('newcomer-sub', { email: 'ada@newcomers.test', email_verified: true, name: 'Ada Lovelace', picture })
    await signInAtProvider(page, 'newcomer-sub')
    const db = new Database(join(campfire.storage, 'db', 'production.sqlite3'), { readonly: true })
    const open = db.prepare("SELECT name FROM rooms WHERE type = 'Rooms::Open' ORDER BY name").pluck().all() as string[]
    db.close()
    assert.ok(open.length > 0)
    await page.locator('#composer').waitFor()
    await screenshot(page, 'sso-newcomer')
    for (const name of open) assert.ok(await page.locator('#sidebar').getByText(name, { exact: true }).count() > 0, `${name} is in the sidebar`)
    assert.equal(await whoIsSignedIn(page), 'Ada Lovelace')
    assert.deepEqual(pictureHits, [], 'the loopback picture was never fetched')
    await tab.context.close()
  })
})
