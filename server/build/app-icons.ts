import { writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import sharp from 'sharp'
import { projectPath } from '../lib/paths.ts'

// The stock icons /account/logo answers while the account has no logo of its own: our campfire
// (public/images/campfire.svg) drawn at 512 and 192 pixels. They are committed; run this again
// (npm run build:icons) after changing the drawing.
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

const USAGE = `Usage: npm run build:icons

  Draws public/images/campfire.svg as the stock app icons public/images/app-icon.png (512 px) and
  app-icon-192.png (192 px), which /account/logo answers until the account has a logo.

Options:
  -h, --help  print this help and exit`

if (import.meta.url === `file://${process.argv[1]}`) {
  let help = false
  try {
    help = parseArgs({ options: { help: { type: 'boolean', short: 'h' } } }).values.help === true
  } catch (error) {
    console.error(`build:icons: ${(error as Error).message}\n\n${USAGE}`)
    process.exit(2)
  }
  if (help) console.log(USAGE)
  else await drawAppIcons()
}
