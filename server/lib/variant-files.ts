import { createHash } from 'node:crypto'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { resizeToLimit, type ImageInfo, type OutputFormat } from './images.ts'
import { generateBlobKey } from './uploads.ts'
import { blobPath } from './files.ts'

export interface VariantSpec {
  width: number
  height: number
  format: OutputFormat
  // The file's extension, when it is not the format's own name (a :thumb of a .jpg is a .jpg).
  extension?: string
  // An animated GIF or WebP keeps its frames (a message's thumbnail; not an avatar or a logo).
  animated?: boolean
}

export interface VariantFile {
  path: string
  key: string
  filename: string
  contentType: string
  byteSize: number
  checksum: string
  metadata: Record<string, unknown>
}

// ActiveStorage::Filename#base: the name without its last extension.
export function filenameBase(filename: string): string {
  const dot = filename.lastIndexOf('.')
  return dot > 0 ? filename.slice(0, dot) : filename
}

// Writes a derived file (a variant, a video's preview image) where Active Storage's disk service
// keeps a blob, under a new key, and describes it as its blob row will. A partly written file is
// removed again when the write fails.
export async function writeBlobFile(filesRoot: string, bytes: Buffer, description: { filename: string; contentType: string; metadata: Record<string, unknown> }): Promise<VariantFile> {
  const key = generateBlobKey()
  const path = blobPath(filesRoot, key)!
  await mkdir(dirname(path), { recursive: true })
  try {
    await writeFile(path, bytes, { flag: 'wx' })
  } catch (error) {
    if ((error as { code?: string }).code !== 'EEXIST') await rm(path, { force: true })
    throw error
  }
  return { path, key, ...description, byteSize: bytes.length, checksum: createHash('md5').update(bytes).digest('base64') }
}

// Processes an original into a variant (resize_to_limit, upright, no metadata) and writes it,
// described as Rails describes a variant's blob (named after the original, with the variant's
// extension). `probed` is the original's probe, when the caller has read it already.
// Throws ImageError when the original cannot be processed; nothing is written then, nor when the
// write itself fails.
export async function writeVariant(filesRoot: string, source: Buffer | string, originalFilename: string, spec: VariantSpec, probed?: ImageInfo): Promise<VariantFile> {
  const { bytes, width, height } = await resizeToLimit(source, spec.width, spec.height, spec.format, { animated: spec.animated, probed })
  return writeBlobFile(filesRoot, bytes, {
    filename: `${filenameBase(originalFilename)}.${spec.extension ?? spec.format}`,
    contentType: `image/${spec.format}`,
    metadata: { identified: true, width, height, analyzed: true },
  })
}
