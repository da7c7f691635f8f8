import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import sharp from 'sharp'
import { projectPath } from '../lib/paths.ts'
import { runCommand } from './command.ts'
import { PWA_SCREENSHOTS, screenshotSize } from '../lib/pwa-screenshots.ts'
import { CHROMIUM_PATH, ensureChromium } from './chromium.ts'

// The web manifest's screenshots, of our own pages: a server on a freshly seeded database (npm run
// seed's development dataset), David signed in, the busy room "All Talk", in Debian's Chromium at
// each screenshot's size and colour scheme. The PNGs are committed under
// public/images/screenshots/; run this again (npm run build:screenshots, then build:assets) after
// the room's look changes.
const OUT = projectPath('public', 'images', 'screenshots')
const SECRET_KEY_BASE = 'e'.repeat(64) + 'f'.repeat(64)
const PASSWORD = 'secret123456'

export async function drawPwaScreenshots(): Promise<string[]> {
  if (!ensureChromium()) throw new Error(`Chromium is needed at ${CHROMIUM_PATH}`)
  const { chromium } = await import('playwright-core')
  const storage = mkdtempSync(join(tmpdir(), 'campfire-screenshots-'))
  const env = { ...process.env, CAMPFIRE_STORAGE_PATH: storage, SECRET_KEY_BASE, DISABLE_SSL: 'true', LOG_LEVEL: 'info', HTTP_PORT: '0', HTTP_BIND: '127.0.0.1' }
  execFileSync(process.execPath, ['--import', 'tsx', projectPath('test', 'load', 'seed.ts')], { cwd: projectPath(), env, stdio: 'ignore' })
  const labels = JSON.parse(readFileSync(join(storage, 'db', 'labels.json'), 'utf8')) as Record<string, string | number>
  const server = spawn(process.execPath, ['--import', 'tsx', projectPath('server', 'main.ts')], { cwd: projectPath(), env, stdio: ['ignore', 'pipe', 'pipe'] })
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'] })
  const written: string[] = []
  try {
    const baseURL = await listening(server)
    mkdirSync(OUT, { recursive: true })
    for (const shot of PWA_SCREENSHOTS) {
      const phone = shot.formFactor === 'narrow'
      const context = await browser.newContext({ baseURL, viewport: shot.viewport, deviceScaleFactor: shot.scale, colorScheme: shot.colorScheme, isMobile: phone, hasTouch: phone, locale: 'en-US', timezoneId: 'UTC' })
      const page = await context.newPage()
      await page.goto('/session/new')
      await page.getByLabel('Email address').fill('david@37signals.com')
      await page.getByLabel('Password').fill(PASSWORD)
      await Promise.all([page.waitForURL((url) => !url.pathname.startsWith('/session')), page.keyboard.press('Enter')])
      await page.goto(`/rooms/${labels['rooms.watercooler']}`)
      await page.locator('#composer lexxy-editor[connected] [contenteditable="true"]').waitFor()
      await page.locator('#user_sidebar .room').first().waitFor({ state: 'attached' })
      await page.waitForFunction('[...document.images].every((image) => image.complete) && !document.getAnimations().some((a) => a.playState === "running" && String(a.effect?.pseudoElement).startsWith("::view-transition"))')
      await page.waitForTimeout(500)
      const png = await page.screenshot({ animations: 'disabled', caret: 'hide' })
      const { width, height } = screenshotSize(shot)
      const drawn = await sharp(png).metadata()
      if (drawn.width !== width || drawn.height !== height) throw new Error(`${shot.file}: drawn at ${drawn.width}×${drawn.height}, declared ${width}×${height}`)
      const path = join(OUT, shot.file)
      writeFileSync(path, await sharp(png).png({ palette: true, quality: 90, compressionLevel: 9, effort: 10 }).toBuffer())
      written.push(path)
      await context.close()
    }
  } finally {
    await browser.close()
    server.kill('SIGTERM')
    rmSync(storage, { recursive: true, force: true })
  }
  return written
}

function listening(server: ChildProcess): Promise<string> {
  let log = ''
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start:\n${log}`)), 60_000)
    const read = (chunk: Buffer) => {
      log += chunk.toString()
      const found = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(log)
      if (found) {
        clearTimeout(timer)
        resolve(found[1]!)
      }
    }
    server.stdout!.on('data', read)
    server.stderr!.on('data', read)
    server.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`the server exited with ${code}:\n${log}`))
    })
  })
}

const USAGE = `Usage: npm run build:screenshots

  Seeds a temporary database, starts the server on it and draws the web manifest's screenshots
  (server/lib/pwa-screenshots.ts) of the room "All Talk" with Chromium into
  public/images/screenshots/. Run npm run build:assets afterwards to serve them.

Options:
  -h, --help  print this help and exit`

if (import.meta.url === `file://${process.argv[1]}`) await runCommand('build:screenshots', USAGE, async () => { for (const path of await drawPwaScreenshots()) console.log(path) })
