import { rm } from 'node:fs/promises'
import type { FastifyInstance } from 'fastify'
import { ImageError, MAX_INPUT_PIXELS, probe } from '../../lib/images.ts'
import type { StoredUpload } from '../../lib/uploads.ts'
import { writeVariant, type VariantFile } from '../../lib/variant-files.ts'
import { isVideoType } from '../../lib/video.ts'
import type { VideoDerivatives } from '../../lib/video-posters.ts'
import type { VideoAttachments } from '../../plugins/video.ts'
import type { Models } from '../../models/index.ts'
import type { NewBlob } from '../../models/blob.ts'
import { thumbVariationFor, UNPREVIEWABLE_KEY, VIDEO_POSTER, type Unpreviewable, type Variation } from '../../models/blob/variations.ts'
import type { MessageRow } from '../../models/message.ts'
import { recordVariant } from '../processed-variants.ts'

// What preparing an attachment uses of the app: its log and its video tools. The app itself
// serves; so does the Slack import, which makes its attachments outside the server.
export interface AttachmentServices {
  log: { error(details: object, message: string): void }
  video: Pick<VideoAttachments, 'prepare'>
}

// An attachment ready to be written with its message: the blob as it will be recorded, the
// thumbnail already made from it (an image's :thumb), and every file written so far, for the
// caller to remove if the message is not written after all.
export interface PreparedAttachment {
  blob: NewBlob
  thumb: { variation: Variation; file: VariantFile } | null
  // A video's preview image and poster, recorded with the message (recordPreview).
  preview?: VideoDerivatives['preview']
  paths: string[]
}

// Message#process_attachment, the image half, done before the message is written so that the
// blob is recorded as what it turned out to be. An image's :thumb is made now (sharp, on libuv's
// pool). An image we will not decode (its header names more than MAX_INPUT_PIXELS, so it is
// refused unread, or it has no readable size, or decoding it fails) is kept as a plain file: an
// application/octet-stream download whose metadata says why it has no preview, so neither a
// page render here nor Rails, if the database moves, ever decodes it. Any other failure to make
// the thumbnail (a disk error) is logged in one line and the message goes out without one; the
// representation route makes it later.
const SIZED_BY_LIBVIPS = /^image\/(tiff|avif|heic|heif)$/

export async function prepareAttachment(app: AttachmentServices, filesRoot: string, upload: StoredUpload, filename: string): Promise<PreparedAttachment> {
  const blob: NewBlob = { key: upload.key, filename, contentType: upload.contentType, metadata: upload.metadata, byteSize: upload.byteSize, checksum: upload.checksum }
  const prepared: PreparedAttachment = { blob, thumb: null, paths: [upload.path] }
  if (isVideoType(upload.contentType)) return prepareVideo(app, prepared, upload, filename)
  if (!upload.contentType.startsWith('image/')) return prepared
  const { width, height } = upload.metadata as { width?: unknown; height?: unknown }
  const sized = typeof width === 'number' && typeof height === 'number'
  // TIFF, AVIF and HEIF sizes are read by libvips from the header (probe, below), not by us.
  if (!sized && !SIZED_BY_LIBVIPS.test(upload.contentType)) return asFile(prepared, 'unreadable')
  if (sized && width * height > MAX_INPUT_PIXELS) return asFile(prepared, 'too_large')
  const variation = thumbVariationFor({ filename, content_type: upload.contentType })
  try {
    // The size as it is shown, turned by the EXIF orientation (as Rails' image analyzer reports it).
    const upright = await probe(upload.path)
    const file = await writeVariant(filesRoot, upload.path, filename, variation, upright)
    const metadata = { ...upload.metadata, width: upright.width, height: upright.height }
    return { blob: { ...blob, metadata }, thumb: { variation, file }, paths: [...prepared.paths, file.path] }
  } catch (error) {
    if (error instanceof ImageError) return asFile(prepared, /too large/.test(error.message) ? 'too_large' : 'unreadable')
    app.log.error({ key: upload.key, err: (error as Error).message }, 'attachment thumbnail not made')
    return prepared
  }
}

// The video half: its metadata (ffprobe) and its preview image and poster (ffmpeg, then sharp),
// made now so that the message is announced with its poster. Without ffmpeg the video posts and
// plays without one (app.video logs why, in one line); a file ffprobe cannot read as a video is
// kept as a plain file, as an unreadable image is.
async function prepareVideo(app: AttachmentServices, prepared: PreparedAttachment, upload: StoredUpload, filename: string): Promise<PreparedAttachment> {
  const video = await app.video.prepare(upload, filename)
  if (!video) return prepared
  // ffprobe read it and found no video (random bytes, an HTML page claiming to be one): a file.
  if (video.unreadable) return asFile(prepared, 'unplayable')
  const blob = video.metadata ? { ...prepared.blob, metadata: { ...prepared.blob.metadata, ...video.metadata } } : prepared.blob
  const { preview } = video
  return { ...prepared, blob, preview, paths: preview ? [...prepared.paths, preview.image.path, preview.poster.path] : prepared.paths }
}

// In the message's own transaction, right after its blob: the video's preview image attached
// to the blob and the poster as the image's variant, so no page shows the message without them.
export function recordPreview(models: Models, blobId: number, prepared: PreparedAttachment): void {
  if (prepared.preview) models.blobPreviews.recordWithVariant(blobId, prepared.preview.image, VIDEO_POSTER.digest, prepared.preview.poster)
}

function asFile(prepared: PreparedAttachment, reason: Unpreviewable): PreparedAttachment {
  const { width: _width, height: _height, ...metadata } = prepared.blob.metadata
  return { ...prepared, blob: { ...prepared.blob, contentType: 'application/octet-stream', metadata: { ...metadata, [UNPREVIEWABLE_KEY]: reason } } }
}

// After the message is written: its thumbnail's variant record, in a transaction of its own, so
// that a failure there loses only the thumbnail (its file is removed again; one log line).
export async function recordDerivatives(app: FastifyInstance, message: MessageRow, prepared: PreparedAttachment): Promise<void> {
  const { thumb } = prepared
  if (!thumb) return
  try {
    const original = app.store.read((m) => m.messageAttachments.find(message.id))
    if (!original || original.key !== prepared.blob.key) {
      await rm(thumb.file.path, { force: true })
      return
    }
    await recordVariant(app, original.id, thumb.variation, thumb.file)
  } catch (error) {
    app.log.error({ message_id: message.id, err: (error as Error).message }, 'attachment thumbnail not recorded')
  }
}

export async function removePrepared(prepared: PreparedAttachment): Promise<void> {
  await Promise.all(prepared.paths.map((path) => rm(path, { force: true })))
}
