import { writeFileSync } from 'node:fs'
import sharp from 'sharp'
import { projectPath } from '../lib/paths.ts'

// The stock icons /account/logo answers while the account has no logo of its own: our campfire
// (public/images/campfire.svg) drawn at 512 and 192 pixels. They are committed; run this again
// (node --import tsx server/build/app-icons.ts) after changing the drawing.
const ICONS: [string, number][] = [
  ['app-icon.png', 512],
  ['app-icon-192.png', 192],
]

export async function drawAppIcons(): Promise<void> {
  const svg = projectPath('public', 'images', 'campfire.svg')
  for (const [name, size] of ICONS) {
    const png = await sharp(svg, { density: (72 * size) / 64 }).resize(size, size).png({ compressionLevel: 9, palette: true }).toBuffer()
    writeFileSync(projectPath('public', 'images', name), png)
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await drawAppIcons()
