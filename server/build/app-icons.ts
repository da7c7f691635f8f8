import { readFileSync, writeFileSync } from 'node:fs'
import sharp from 'sharp'
import { projectPath } from '../lib/paths.ts'
import { runCommand } from './command.ts'

// The stock icons /account/logo answers while the account has no logo of its own: our campfire
// (public/images/campfire.svg) drawn at 512 and 192 pixels, and its maskable icon: the same
// drawing with its dark square run to the edges (a launcher crops it to its own shape) and the
// fire drawn at 90%, so all of it lies inside the safe zone, the central circle of 40% radius. They are committed; run
// this again (npm run build:icons) after changing the drawing.
const ICONS: [string, number][] = [
  ['app-icon.png', 512],
  ['app-icon-192.png', 192],
]

export async function drawAppIcons(): Promise<void> {
  const svg = readFileSync(projectPath('public', 'images', 'campfire.svg'), 'utf8')
  const square = /<rect width="64" height="64" rx="16" fill="([^"]+)"\/>([\s\S]*)<\/svg>/.exec(svg)
  if (!square) throw new Error('campfire.svg: its background square was not found')
  const fullBleed = svg.slice(0, square.index) + `<rect width="64" height="64" fill="${square[1]}"/><g transform="translate(32 32) scale(0.9) translate(-32 -32)">${square[2]}</g></svg>`
  for (const [name, size, drawing] of [...ICONS.map(([n, s]) => [n, s, svg] as const), ['app-icon-maskable.png', 512, fullBleed] as const]) {
    const png = await sharp(Buffer.from(drawing), { density: (72 * size) / 64 }).resize(size, size).png({ compressionLevel: 9, palette: true }).toBuffer()
    writeFileSync(projectPath('public', 'images', name), png)
  }
}

const USAGE = `Usage: npm run build:icons

  Draws public/images/campfire.svg as the stock app icons public/images/app-icon.png (512 px),
  app-icon-192.png (192 px) and app-icon-maskable.png (512 px, full bleed), which /account/logo
  answers until the account has a logo.

Options:
  -h, --help  print this help and exit`

if (import.meta.url === `file://${process.argv[1]}`) await runCommand('build:icons', USAGE, drawAppIcons)
