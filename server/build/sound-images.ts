import { findSound, SOUND_NAMES } from '../models/rich-text/sound.ts'

// The pictures shown with /play sounds that have one: drawn here as small SVG cards (a warm
// gradient, the sound's name in bold type, and a few sound waves), sized as the message expects.
export function soundImages(): Map<string, string> {
  const images = new Map<string, string>()
  for (const name of SOUND_NAMES) {
    const image = findSound(name)?.image
    if (!image) continue
    const file = image.file.replace(/\.webp$/, '.svg')
    images.set(file.replace(/^sounds\//, ''), card(file.replace(/^sounds\/|\.svg$/g, ''), image.width, image.height))
  }
  return images
}

function hue(name: string): number {
  let h = 0
  for (const c of name) h = (h * 31 + c.charCodeAt(0)) % 360
  return h
}

function card(label: string, width: number, height: number): string {
  const h = hue(label)
  const size = Math.max(8, Math.min(height * 0.5, (width / Math.max(label.length, 3)) * 1.5))
  const waves = height >= 40
    ? [0.18, 0.3, 0.42].map((r, i) => `<circle cx="${width * 0.08}" cy="${height / 2}" r="${height * r}" fill="none" stroke="white" stroke-opacity="${0.5 - i * 0.12}" stroke-width="${Math.max(1, height * 0.03)}"/>`).join('')
    : ''
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${label}">` +
    `<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="hsl(${h} 85% 58%)"/><stop offset="1" stop-color="hsl(${(h + 50) % 360} 80% 45%)"/></linearGradient></defs>` +
    `<rect width="${width}" height="${height}" rx="${Math.min(12, height / 4)}" fill="url(#g)"/>${waves}` +
    `<text x="50%" y="50%" dominant-baseline="central" text-anchor="middle" font-family="system-ui, sans-serif" font-weight="800" font-size="${size.toFixed(1)}" fill="white">${label.toUpperCase()}</text></svg>`
}
