import { ImageError, MAX_INPUT_PIXELS, sharpPackage } from './images.ts'

// A web app's "maskable" icon is cropped by the launcher to a circle, a squircle or a teardrop.
// Only the circle at its centre with 40% of its width as radius (the safe zone) is sure to show,
// so the picture is fitted into the largest square inside that circle (288 of 512 pixels: its
// corners lie 203.6 px from the centre, inside the 204.8 px radius) and the rest is background.
export const MASKABLE_SIZE = 512
export const MASKABLE_SAFE_RADIUS = 0.4 * MASKABLE_SIZE
export const MASKABLE_CONTENT = 288
export const MASKABLE_BACKGROUND = { r: 255, g: 255, b: 255 }

// The picture (any image libvips may read, such as the logo's PNG), flattened onto the white
// background, fitted into the safe square (enlarged when smaller), centred, as an opaque
// 512×512 PNG. Throws ImageError when the picture cannot be read.
export async function maskableIcon(picture: Buffer): Promise<Buffer> {
  let fitted: Buffer
  try {
    fitted = await sharpPackage()(picture, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error', pages: 1 })
      .rotate()
      .flatten({ background: MASKABLE_BACKGROUND })
      .resize(MASKABLE_CONTENT, MASKABLE_CONTENT, { fit: 'inside' })
      .png()
      .toBuffer()
  } catch {
    throw new ImageError('That file is not an image we can read.')
  }
  const composed = await sharpPackage()({ create: { width: MASKABLE_SIZE, height: MASKABLE_SIZE, channels: 3, background: MASKABLE_BACKGROUND } })
    .composite([{ input: fitted, gravity: 'centre' }])
    .raw()
    .toBuffer({ resolveWithObject: true })
  // Compositing gives the image an alpha channel; a maskable icon is opaque.
  const { width, height, channels } = composed.info
  return sharpPackage()(composed.data, { raw: { width, height, channels } }).removeAlpha().png({ compressionLevel: 9 }).toBuffer()
}
