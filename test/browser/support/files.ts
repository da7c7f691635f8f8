import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import sharp from 'sharp'
import { ensureFfmpeg, FFMPEG_PATH } from '../../../server/build/ffmpeg.ts'

// Files a person sends, made here: what Playwright hands the page (setInputFiles takes the same shape).
export interface TestFile {
  name: string
  mimeType: string
  buffer: Buffer
}

// A camera-sized photo (3000×2000, about 2 MB of JPEG): big enough that its upload takes a while
// when the network is slowed, and that its thumbnail must be smaller than it.
export async function photo(name = 'photo.jpg', width = 3000, height = 2000): Promise<TestFile> {
  const buffer = await sharp({ create: { width, height, channels: 3, background: { r: 128, g: 128, b: 128 }, noise: { type: 'gaussian', mean: 128, sigma: 24 } } }).jpeg({ quality: 80 }).toBuffer()
  return { name, mimeType: 'image/jpeg', buffer }
}

// A 3000×2000 landscape (sky, sea and sun) as a JPEG, for screenshots that show a thumbnail.
export async function landscape(name = 'beach.jpg'): Promise<TestFile> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="3000" height="2000">
    <defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#2b6cb0"/><stop offset="1" stop-color="#f6ad55"/></linearGradient>
    <linearGradient id="sea" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#2c7a7b"/><stop offset="1" stop-color="#1a365d"/></linearGradient></defs>
    <rect width="3000" height="1300" fill="url(#sky)"/><circle cx="2100" cy="1150" r="260" fill="#fefcbf"/>
    <rect y="1300" width="3000" height="700" fill="url(#sea)"/><rect y="1760" width="3000" height="240" fill="#f6e05e"/></svg>`
  const buffer = await sharp(Buffer.from(svg)).jpeg({ quality: 85 }).toBuffer()
  return { name, mimeType: 'image/jpeg', buffer }
}

// A small PNG, as a screenshot tool puts on the clipboard.
export async function picture(name: string, width: number, height: number): Promise<TestFile> {
  const buffer = await sharp({ create: { width, height, channels: 3, background: { r: 230, g: 120, b: 40 } } }).png().toBuffer()
  return { name, mimeType: 'image/png', buffer }
}

export function textFile(name: string, text: string): TestFile {
  return { name, mimeType: 'text/plain', buffer: Buffer.from(text) }
}

// A one-second 320×240 MP4 made by Debian's ffmpeg, or null where ffmpeg is missing.
export function videoClip(name = 'clip.mp4'): TestFile | null {
  if (!ensureFfmpeg()) return null
  const dir = mkdtempSync(join(tmpdir(), 'campfire-clip-'))
  try {
    const path = join(dir, name)
    execFileSync(FFMPEG_PATH, ['-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=10', '-t', '1', '-pix_fmt', 'yuv420p', '-movflags', '+faststart', path])
    return { name, mimeType: 'video/mp4', buffer: readFileSync(path) }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

// What a person's drag from the desktop delivers: dragenter, dragover and one drop carrying the
// files, on the element the selector names.
export async function dropFiles(page: Page, selector: string, files: TestFile[]): Promise<void> {
  await page.locator(selector).first().waitFor()
  await page.evaluate(`(() => {
    const target = document.querySelector(${JSON.stringify(selector)})
    const data = ${dataTransfer(files)}
    for (const type of ['dragenter', 'dragover', 'drop']) target.dispatchEvent(new DragEvent(type, { dataTransfer: data, bubbles: true, cancelable: true }))
  })()`)
}

// A paste of files (as from a screenshot tool) into the element the selector names.
export async function pasteFiles(page: Page, selector: string, files: TestFile[]): Promise<void> {
  await page.locator(selector).first().waitFor()
  await page.evaluate(`(() => {
    const target = document.querySelector(${JSON.stringify(selector)})
    target.dispatchEvent(new ClipboardEvent('paste', { clipboardData: ${dataTransfer(files)}, bubbles: true, cancelable: true }))
  })()`)
}

// In-page code that builds a DataTransfer holding the files.
function dataTransfer(files: TestFile[]): string {
  const items = JSON.stringify(files.map((file) => ({ name: file.name, type: file.mimeType, base64: file.buffer.toString('base64') })))
  return `(() => {
    const data = new DataTransfer()
    for (const item of ${items}) data.items.add(new File([Uint8Array.from(atob(item.base64), (c) => c.charCodeAt(0))], item.name, { type: item.type }))
    return data
  })()`
}

// Slows the page's uploads (bytes per second) as DevTools' network throttling does, so a
// pending upload stays on screen long enough to be seen, until lift() is called.
export async function throttleUploads(page: Page, bytesPerSecond: number): Promise<{ lift: () => Promise<void> }> {
  const cdp = await page.context().newCDPSession(page)
  await cdp.send('Network.enable')
  const conditions = (uploadThroughput: number) => cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput })
  await conditions(bytesPerSecond)
  return {
    lift: async () => {
      await conditions(-1)
    },
  }
}
