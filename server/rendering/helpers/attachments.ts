import type { RailsSigning } from '../../lib/rails/signing.ts'
import type { AttachmentDisplay } from '../../models/message/display.ts'
import { escapeHtml } from '../templates.ts'

// Message::THUMBNAIL_MAX_WIDTH / _HEIGHT: previews fit in this box.
export const THUMBNAIL_MAX_WIDTH = 1200
export const THUMBNAIL_MAX_HEIGHT = 800

export const BLOB_ROUTE_PREFIX = '/rails/active_storage/blobs/redirect'
export const BLOB_PURPOSE = 'blob_id'
export const BLOB_MODEL = 'ActiveStorage::Blob'

// rails_blob_path: the blob's signed id (purpose blob_id, no expiry, so the URL is the same
// for every viewer and can live in the shared message fragment) and its filename.
export function blobPath(signing: RailsSigning, blob: { blob_id: number; filename: string }, disposition?: 'attachment'): string {
  const path = `${BLOB_ROUTE_PREFIX}/${signing.signedId(BLOB_MODEL, blob.blob_id, BLOB_PURPOSE)}/${encodeURIComponent(blob.filename)}`
  return disposition ? `${path}?disposition=${disposition}` : path
}

export function imageMetadata(attachment: AttachmentDisplay): { width: number; height: number } | null {
  try {
    const metadata = JSON.parse(attachment.metadata ?? '{}') as { width?: unknown; height?: unknown }
    const { width, height } = metadata
    return typeof width === 'number' && typeof height === 'number' && width > 0 && height > 0 ? { width, height } : null
  } catch {
    return null
  }
}

// The size a preview is drawn at: the image's own if it fits 1200×800, else scaled to fit.
export function previewDimensions(size: { width: number; height: number } | null): { width: number; height: number } | null {
  if (!size) return null
  if (size.width <= THUMBNAIL_MAX_WIDTH && size.height <= THUMBNAIL_MAX_HEIGHT) return size
  const scale = Math.min(THUMBNAIL_MAX_WIDTH / size.width, THUMBNAIL_MAX_HEIGHT / size.height)
  return { width: Math.max(1, Math.round(size.width * scale)), height: Math.max(1, Math.round(size.height * scale)) }
}

const IMAGE_TYPES = /^image\/(png|jpeg|gif|webp)$/
const VIDEO_TYPES = /^video\/(mp4|webm|quicktime)$/

function frame(size: { width: number; height: number } | null, inner: string): string {
  if (!size) return `<div class="max-inline-size center overflow-clip">${inner}</div>`
  const ratio = +(size.width / size.height).toFixed(6)
  return `<div class="max-inline-size center flex overflow-clip" style="width: ${size.width / 2}px; aspect-ratio: ${ratio};">${inner}</div>`
}

// An attachment message's presentation: images open in the layout's lightbox, videos play
// inline, anything else is a file name with a download link. Nothing here depends on the viewer.
export function renderAttachment(signing: RailsSigning, attachment: AttachmentDisplay): string {
  const type = attachment.content_type ?? ''
  const name = escapeHtml(attachment.filename)
  const url = escapeHtml(blobPath(signing, attachment))
  const download = escapeHtml(blobPath(signing, attachment, 'attachment'))
  if (IMAGE_TYPES.test(type)) {
    const size = previewDimensions(imageMetadata(attachment))
    const dimensions = size ? ` width="${size.width}" height="${size.height}"` : ''
    return frame(size, `<a href="${url}" class="flex" data-lightbox data-lightbox-filename="${name}"><img src="${url}"${dimensions} class="message__attachment" loading="lazy" alt="${name}"></a>`)
  }
  if (VIDEO_TYPES.test(type)) {
    return frame(null, `<video src="${url}" controls preload="none" width="100%" height="100%" class="message__attachment"></video>`)
  }
  return (
    `<div class="attachment attachment--file flex-inline align-center gap-half"><span class="icon icon--attachment" aria-hidden="true"></span>` +
    `<span class="attachment__filename">${name}</span>` +
    `<a href="${download}" class="btn message__action-btn hide-in-ios-pwa" style="--width: auto;" download="${name}"><span class="icon icon--download" aria-hidden="true"></span><span class="for-screen-reader">Download ${name}</span></a></div>`
  )
}
