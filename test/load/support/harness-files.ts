// The harness seed's files, made here rather than copied: upstream's test/fixtures/files are a
// 640 × 640 photo (moon.jpg), a 3840 × 2160 one (black_hole.jpg), a QuickTime video
// (alpha-centuri.mov) and a tiny BMP (pixel.bmp); the seed adds a text file. Each is stored
// where Active Storage's disk service keeps a blob and processed the way the server processes
// an upload: an image's :thumb, a video's metadata, preview image and poster, an avatar's square
// WebP. The blobs keep the content types Rails identifies (image/bmp, video/quicktime), whatever
// our own upload would have called them.
import { mkdtempSync, rmSync } from 'node:fs'
import sharp from 'sharp'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { FFMPEG_PATH, FFPROBE_PATH } from '../../../server/build/ffmpeg.ts'
import { probe, type ImageInfo } from '../../../server/lib/images.ts'
import { writeBlobFile, writeVariant, type VariantFile } from '../../../server/lib/variant-files.ts'
import { makeVideoDerivatives } from '../../../server/lib/video-posters.ts'
import { findVideoTools, VideoProcessor } from '../../../server/lib/video.ts'
import type { Models } from '../../../server/models/index.ts'
import type { NewBlob } from '../../../server/models/blob.ts'
import { AVATAR_SQUARE, thumbVariationFor, VIDEO_POSTER } from '../../../server/models/blob/variations.ts'
import { bmp, jpeg } from '../../support/images.ts'
import { makeVideo, readVideo } from '../../support/videos.ts'

export interface SeedFile {
  filename: string
  contentType: string
  bytes: Buffer
}

export interface HarnessFiles {
  moon: SeedFile
  blackHole: SeedFile
  video: SeedFile
  notes: SeedFile
  bmp: SeedFile
}

// A message's attachment as postMessageWithAttachment takes it: the blob, and what was made from
// the file, recorded against the new blob in the message's transaction.
export interface PreparedFile {
  blob: NewBlob
  derived: (models: Models, blobId: number) => void
}

export async function makeHarnessFiles(): Promise<HarnessFiles> {
  const dir = mkdtempSync(join(tmpdir(), 'campfire-harness-files-'))
  try {
    const video = makeVideo(dir, 'alpha-centuri.mov', ['-f', 'lavfi', '-i', 'testsrc=size=640x360:rate=10', '-t', '1', '-pix_fmt', 'yuv420p'])
    return {
      moon: { filename: 'moon.jpg', contentType: 'image/jpeg', bytes: await jpeg(640, 640) },
      blackHole: { filename: 'black_hole.jpg', contentType: 'image/jpeg', bytes: await largePhoto() },
      video: { filename: 'alpha-centuri.mov', contentType: 'video/quicktime', bytes: readVideo(video) },
      notes: { filename: 'launch-notes.txt', contentType: 'text/plain', bytes: Buffer.from('Launch notes\n\n1. Copy\n2. Video\n3. Ship\n') },
      bmp: { filename: 'pixel.bmp', contentType: 'image/bmp', bytes: bmp() },
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

// 3840 × 2160, made from a small noisy photo blown up (noise at full size takes seconds to make).
async function largePhoto(): Promise<Buffer> {
  return sharp(await jpeg(480, 270)).resize(3840, 2160, { kernel: 'nearest' }).jpeg({ quality: 70 }).toBuffer()
}

const asBlob = ({ path: _path, ...blob }: VariantFile): NewBlob => blob

// Writes the original under a new key, described as Active Storage's analyzers describe it (a
// photo with its size; Campfire's libvips reads no BMP, so that one has none).
async function storeOriginal(filesRoot: string, file: SeedFile): Promise<{ stored: VariantFile; image?: ImageInfo }> {
  const stored = await writeBlobFile(filesRoot, file.bytes, { filename: file.filename, contentType: file.contentType, metadata: { identified: true, analyzed: true } })
  if (file.contentType !== 'image/jpeg') return { stored }
  const image = await probe(stored.path)
  return { stored: { ...stored, metadata: { identified: true, width: image.width, height: image.height, analyzed: true } }, image }
}

export class SeedFiles {
  private constructor(
    private readonly filesRoot: string,
    private readonly video: VideoProcessor,
  ) {}

  // Videos need Debian's ffmpeg and ffprobe (as the server's posters do).
  static async open(filesRoot: string): Promise<SeedFiles> {
    const tools = await findVideoTools({ ffmpeg: FFMPEG_PATH, ffprobe: FFPROBE_PATH })
    if (!tools.ffmpeg || !tools.ffprobe) throw new Error(`the harness seed needs ffmpeg and ffprobe for its video: ${tools.problems.join('; ')}`)
    return new SeedFiles(filesRoot, new VideoProcessor(tools))
  }

  close(): Promise<void> {
    return this.video.close()
  }

  // Message::Attachment#process_attachment: an image's :thumb, a video's poster; other files as they are.
  async attachment(file: SeedFile): Promise<PreparedFile> {
    const { stored: original, image } = await storeOriginal(this.filesRoot, file)
    if (image) {
      const variation = thumbVariationFor({ filename: file.filename, content_type: file.contentType })
      const thumb = await writeVariant(this.filesRoot, original.path, file.filename, variation, image)
      return { blob: asBlob(original), derived: (models, blobId) => void models.blobVariants.record(blobId, variation.digest, asBlob(thumb)) }
    }
    if (file.contentType.startsWith('video/')) {
      const made = await makeVideoDerivatives(this.video, this.filesRoot, { path: original.path, filename: file.filename }, VIDEO_POSTER)
      if (!made.preview) throw new Error(`the seed video has no poster: ${made.problem}`)
      const { image, poster } = made.preview
      const blob = { ...asBlob(original), metadata: { identified: true, ...made.metadata, analyzed: true } }
      return { blob, derived: (models, blobId) => void models.blobPreviews.recordWithVariant(blobId, asBlob(image), VIDEO_POSTER.digest, asBlob(poster)) }
    }
    return { blob: asBlob(original), derived: () => {} }
  }

  // User#avatar with its :square variant processed.
  async avatar(file: SeedFile): Promise<{ original: NewBlob; square: NewBlob }> {
    const { stored: original, image } = await storeOriginal(this.filesRoot, file)
    const square = await writeVariant(this.filesRoot, original.path, file.filename, AVATAR_SQUARE, image)
    return { original: asBlob(original), square: asBlob(square) }
  }
}
