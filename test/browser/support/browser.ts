import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { after } from 'node:test'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { CHROMIUM_PATH, ensureChromium } from '../../../server/build/chromium.ts'
import { ROOT } from '../../support/server-process.ts'
import { PASSWORD } from './campfire.ts'

export const SCREENSHOTS = join(ROOT, 'tmp', 'screenshots')
export const DESKTOP = { width: 1280, height: 800 }
export const PHONE = { width: 390, height: 844 }

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage']

export function chromiumAvailable(): boolean {
  return ensureChromium()
}

// One Chromium per test file: launched when a test first asks for it, closed once the file's
// tests are done. What a test opens in it (contexts, with their cookies, storage, pages and
// sockets: openTab) is closed when that test ends, so nothing one test leaves reaches the next.
// A Chromium that failed to start or has gone is launched again for the next test.
let shared: Promise<Browser> | null = null
after(async () => {
  await (await shared?.catch(() => null))?.close()
})

export async function launchBrowser(t: { after: (fn: () => Promise<void>) => void }): Promise<Browser> {
  const running = await shared?.catch(() => null)
  if (!running?.isConnected()) shared = chromium.launch({ executablePath: CHROMIUM_PATH, args: ARGS, headless: true })
  const browser = await shared!
  t.after(async () => {
    await Promise.all(browser.contexts().map((context) => context.close()))
  })
  return browser
}

export interface Tab {
  context: BrowserContext
  page: Page
  // Console errors and uncaught page errors seen so far (each fails the test that checks).
  problems: string[]
}

// A fresh browser context (its own cookies) with one page, watched for console and page errors.
export async function openTab(browser: Browser, baseUrl: string, options: { viewport?: { width: number; height: number }; colorScheme?: 'light' | 'dark' } = {}): Promise<Tab> {
  const context = await browser.newContext({
    baseURL: baseUrl,
    viewport: options.viewport ?? DESKTOP,
    colorScheme: options.colorScheme ?? 'light',
    timezoneId: 'Europe/Copenhagen',
    locale: 'en-US',
    isMobile: options.viewport === PHONE,
    hasTouch: options.viewport === PHONE,
    deviceScaleFactor: 1,
  })
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl })
  const page = await context.newPage()
  return { context, page, problems: watch(page) }
}

// Another page in the same browser context (the same cookies, so the same person), watched the same way.
export async function openTabBeside(tab: Tab): Promise<Tab> {
  const page = await tab.context.newPage()
  return { context: tab.context, page, problems: watch(page) }
}

function watch(page: Page): string[] {
  const problems: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error on ${page.url()}: ${message.text()}`)
  })
  page.on('pageerror', (error) => problems.push(`page error on ${page.url()}: ${error.message}`))
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()} for ${response.request().method()} ${response.url()}`)
  })
  return problems
}

// Keeps a page's notices (.flash) on screen, fully shown, for a test that measures them: each
// fades and is removed 4 s after it appears, time a loaded machine can spend before the test
// looks. The style goes in before the page's first paint and stays through Turbo's visits.
export async function holdNotices(page: Page): Promise<void> {
  // Plain text, not a function: the test runner's compiled functions call helpers the page lacks.
  await page.addInitScript({
    content: `(() => {
      const style = document.createElement('style')
      style.textContent = '.flash { animation-delay: -1s !important; animation-play-state: paused !important; }'
      const place = () => Boolean(document.documentElement && document.documentElement.append(style) === undefined)
      if (!place()) new MutationObserver((records, observer) => { if (place()) observer.disconnect() }).observe(document, { childList: true })
    })()`,
  })
}

export async function signIn(tab: Tab, email: string): Promise<void> {
  const { page } = tab
  await page.goto('/session/new')
  await page.getByLabel('Email address').fill(email)
  await page.getByLabel('Password').fill(PASSWORD)
  await Promise.all([page.waitForURL((url) => !url.pathname.startsWith('/session')), page.keyboard.press('Enter')])
}

// Waits until the room's live streams are subscribed, so a message sent now is heard.
export async function waitUntilLive(page: Page): Promise<void> {
  await page.locator('turbo-cable-stream-source[connected]').first().waitFor({ state: 'attached' })
  await page.locator('#composer lexxy-editor[connected] [contenteditable="true"]').waitFor()
}

export async function sendMessage(page: Page, text: string): Promise<void> {
  const editor = page.getByRole('textbox', { name: 'Write a message' })
  await editor.click()
  await editor.pressSequentially(text)
  await page.keyboard.press('Enter')
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true })
  const path = join(SCREENSHOTS, `${name}.png`)
  await page.screenshot({ path })
  return path
}
