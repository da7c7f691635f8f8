import { encode } from 'uqr'

// The longest text a QR link may carry: well past any join or transfer URL, well under what
// a QR code at level H holds (1,273 bytes).
export const QR_CODE_MAX_BYTES = 1024
// A quiet zone of four modules (what the standard asks for), so it scans on the dark lightbox.
const QUIET_ZONE = 4
const PIXELS_PER_MODULE = 8

// link_to_zoom_qr_code's id: the text in URL-safe base64, padded, as Ruby's urlsafe_encode64.
export function qrCodeId(text: string): string {
  const id = Buffer.from(text, 'utf8').toString('base64url')
  return id + '='.repeat((4 - (id.length % 4)) % 4)
}

export function qrCodePath(text: string): string {
  return `/qr_code/${qrCodeId(text)}`
}

// The text behind an id, as urlsafe_decode64 reads it (padding optional, nothing else
// tolerated), or null for anything malformed: bad characters or padding, stray bits, too
// long, empty, or not UTF-8.
export function decodeQrCodeId(id: string): string | null {
  if (!/^[A-Za-z0-9_-]*={0,2}$/.test(id)) return null
  const unpadded = id.replace(/=+$/, '')
  if (unpadded.length === 0 || unpadded.length % 4 === 1) return null
  if (unpadded.length !== id.length && id.length % 4 !== 0) return null
  if (unpadded.length > Math.ceil((QR_CODE_MAX_BYTES * 4) / 3)) return null
  const bytes = Buffer.from(unpadded, 'base64url')
  if (bytes.toString('base64url') !== unpadded || bytes.length > QR_CODE_MAX_BYTES) return null
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    return null
  }
}

// The QR code (error correction H, the smallest version that fits) as a standalone SVG: a white
// square with black modules, one unit per module, each row's runs of dark modules merged.
export function qrCodeSvg(text: string): string {
  const { size, data } = encode(text, { ecc: 'H', border: QUIET_ZONE })
  let path = ''
  data.forEach((row, y) => {
    for (let x = 0; x < size; x++) {
      if (!row[x]) continue
      const start = x
      while (x + 1 < size && row[x + 1]) x++
      path += `M${start} ${y}h${x - start + 1}v1h-${x - start + 1}z`
    }
  })
  const pixels = size * PIXELS_PER_MODULE
  return (
    `<?xml version="1.0" encoding="UTF-8"?>` +
    `<svg xmlns="http://www.w3.org/2000/svg" version="1.1" viewBox="0 0 ${size} ${size}" width="${pixels}" height="${pixels}" shape-rendering="crispEdges">` +
    `<rect width="${size}" height="${size}" fill="white"/>` +
    `<path d="${path}" fill="black"/>` +
    `</svg>`
  )
}
