import type { RailsSigning } from '../../lib/rails/signing.ts'
import { isVideoType } from '../../lib/video.ts'
import { isVariable, thumbVariationFor, THUMBNAIL_MAX_HEIGHT, THUMBNAIL_MAX_WIDTH, unpreviewable, VIDEO_POSTER, type Unpreviewable, type Variation } from '../../models/blob/variations.ts'
import type { AttachmentDisplay } from '../../models/message/display.ts'
import { escapeHtml } from '../templates.ts'

export { THUMBNAIL_MAX_HEIGHT, THUMBNAIL_MAX_WIDTH }

export const BLOB_ROUTE_PREFIX = '/rails/active_storage/blobs/redirect'
export const REPRESENTATION_ROUTE_PREFIX = '/rails/active_storage/representations/redirect'
export const BLOB_PURPOSE = 'blob_id'
export const BLOB_MODEL = 'ActiveStorage::Blob'
// The widest an inline image or video is drawn, in CSS pixels.
export const PREVIEW_MAX_WIDTH = 420

// rails_blob_path: the blob's signed id (purpose blob_id, no expiry, so the URL is the same
// for every viewer and can live in the shared message fragment) and its filename.
export function blobPath(signing: RailsSigning, blob: { blob_id: number; filename: string }, disposition?: 'attachment'): string {
  const path = `${BLOB_ROUTE_PREFIX}/${signing.signedId(BLOB_MODEL, blob.blob_id, BLOB_PURPOSE)}/${encodeURIComponent(blob.filename)}`
  return disposition ? `${path}?disposition=${disposition}` : path
}

// rails_blob_representation_path: the original's signed id, the variation's signed key and the
// original's filename; like blobPath, the same for every viewer.
export function representationPath(signing: RailsSigning, blob: { blob_id: number; filename: string }, variation: Variation): string {
  const key = signing.variationKey(variation.transformations)
  return `${REPRESENTATION_ROUTE_PREFIX}/${signing.signedId(BLOB_MODEL, blob.blob_id, BLOB_PURPOSE)}/${encodeURIComponent(key)}/${encodeURIComponent(blob.filename)}`
}

function metadataOf(attachment: AttachmentDisplay): Record<string, unknown> {
  try {
    const metadata = JSON.parse(attachment.metadata ?? '{}') as unknown
    return metadata && typeof metadata === 'object' && !Array.isArray(metadata) ? (metadata as Record<string, unknown>) : {}
  } catch {
    return {}
  }
}

export function imageMetadata(attachment: AttachmentDisplay): { width: number; height: number } | null {
  const { width, height } = metadataOf(attachment)
  return typeof width === 'number' && typeof height === 'number' && width > 0 && height > 0 ? { width, height } : null
}

// The size a preview is drawn at: the image's own if it fits 1200×800, else scaled to fit.
export function previewDimensions(size: { width: number; height: number } | null): { width: number; height: number } | null {
  if (!size) return null
  if (size.width <= THUMBNAIL_MAX_WIDTH && size.height <= THUMBNAIL_MAX_HEIGHT) return size
  const scale = Math.min(THUMBNAIL_MAX_WIDTH / size.width, THUMBNAIL_MAX_HEIGHT / size.height)
  return { width: Math.max(1, Math.round(size.width * scale)), height: Math.max(1, Math.round(size.height * scale)) }
}

// inline_media_dimension_constraints: a box of the media's aspect ratio, half its preview width
// and no wider than PREVIEW_MAX_WIDTH.
function frame(size: { width: number; height: number } | null, inner: string): string {
  if (!size) return `<div class="max-inline-size center overflow-clip">${inner}</div>`
  const ratio = +(size.width / size.height).toFixed(6)
  const width = Math.min(size.width / 2, PREVIEW_MAX_WIDTH)
  return `<div class="max-inline-size center flex overflow-clip" style="width: ${width}px; aspect-ratio: ${ratio};">${inner}</div>`
}

const UNPREVIEWABLE_NOTES: Record<Unpreviewable, string> = {
  too_large: 'This image is too large to preview.',
  unreadable: 'This image can’t be previewed.',
  unplayable: 'This video can’t be played here.',
}

// An attachment message's presentation (Messages::AttachmentPresentation): an image is its
// thumbnail inside the lightbox link, which alone opens the original; a video plays inline with
// its poster; anything else, an image we would not decode included, is the file's icon, name,
// download link and share button. Nothing here depends on the viewer, and nothing decodes a file.
export function renderAttachment(signing: RailsSigning, attachment: AttachmentDisplay): string {
  const type = attachment.content_type ?? ''
  const metadata = metadataOf(attachment)
  const name = escapeHtml(attachment.filename)
  const url = escapeHtml(blobPath(signing, attachment))
  if (isVariable(type) && !unpreviewable(metadata)) {
    const size = previewDimensions(imageMetadata(attachment))
    const dimensions = size ? ` width="${size.width}" height="${size.height}"` : ''
    const src = escapeHtml(representationPath(signing, attachment, thumbVariationFor(attachment)))
    return frame(size, `<a href="${url}" class="flex" data-lightbox data-lightbox-filename="${name}"><img src="${src}"${dimensions} class="message__attachment" loading="lazy" alt="${name}"></a>`)
  }
  if (isVideoType(type)) {
    const poster = attachment.preview ? ` poster="${escapeHtml(representationPath(signing, attachment, VIDEO_POSTER))}"` : ''
    return frame(previewDimensions(imageMetadata(attachment)), `<video src="${url}"${poster} controls preload="none" width="100%" height="100%" class="message__attachment"></video>`)
  }
  return renderLink(signing, attachment, unpreviewable(metadata))
}

// render_link: the file's icon and name, then download and (where the browser can) share.
function renderLink(signing: RailsSigning, attachment: AttachmentDisplay, refused: Unpreviewable | null): string {
  const name = escapeHtml(attachment.filename)
  const download = escapeHtml(blobPath(signing, attachment, 'attachment'))
  const note = refused ? `<span class="message__attachment-note txt-small">${UNPREVIEWABLE_NOTES[refused]}</span>` : ''
  return (
    `<div class="message__attachment-link flex-inline align-center gap-half">` +
    `<span class="icon icon--file message__attachment-icon" aria-hidden="true"></span>` +
    `<span class="message__attachment-filename" title="${name}">${name}</span>${note}` +
    `<a href="${download}" class="btn message__action-btn hide-in-ios-pwa" style="--width: auto;" download="${name}"><span class="icon icon--download" aria-hidden="true"></span><span class="for-screen-reader">Download ${name}</span></a>` +
    `<button type="button" class="btn message__action-btn" style="--width: auto;" hidden data-controller="web-share" data-action="web-share#share" data-web-share-files-value="${download}"><span class="icon icon--share" aria-hidden="true"></span><span class="for-screen-reader">Share ${name}</span></button>` +
    `</div>`
  )
}
