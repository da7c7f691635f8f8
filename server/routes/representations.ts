import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../config.ts'
import { blobPath as diskPath } from '../lib/files.ts'
import { isVideoType } from '../lib/video.ts'
import { filenameBase } from '../lib/variant-files.ts'
import type { ServedBlob } from '../models/blob.ts'
import { isVariable, thumbVariationFor, VIDEO_POSTER, type Variation } from '../models/blob/variations.ts'
import { BLOB_MODEL, BLOB_PURPOSE, REPRESENTATION_ROUTE_PREFIX } from '../rendering/helpers/attachments.ts'
import { sendStoredFile } from './blobs.ts'
import { processedVariants } from './processed-variants.ts'

type Params = { Params: { signed_blob_id: string; variation_key: string; '*': string }; Querystring: { disposition?: string } }

// Whether a variation key's transformations are exactly those of a declared variation.
function names(variation: Variation, transformations: Record<string, unknown>): boolean {
  const { format, resize_to_limit: limit, ...rest } = transformations
  const [width, height] = Array.isArray(limit) && limit.length === 2 ? limit : []
  return Object.keys(rest).length === 0 && format === variation.transformations.format && width === variation.width && height === variation.height
}

// The variation a key may name for this blob: an image's :thumb, or a video's poster.
function variationFor(blob: ServedBlob, transformations: Record<string, unknown>): { variation: Variation; poster: boolean } | null {
  if (isVariable(blob.content_type)) {
    const thumb = thumbVariationFor(blob)
    return names(thumb, transformations) ? { variation: thumb, poster: false } : null
  }
  if (isVideoType(blob.content_type) && names(VIDEO_POSTER, transformations)) return { variation: VIDEO_POSTER, poster: true }
  return null
}

// ActiveStorage::Representations::RedirectController: a declared variant of a blob (an image's
// thumbnail, a video's poster), served here rather than redirected to, to the same people as
// the blob itself (members of the room of a message it is attached to; anyone else gets 404).
// A variant with no record yet (a database Rails made without it, or a thumbnail that could not
// be made when the message was posted) is made now; one that cannot be made falls back to the
// original image (the presentation's preview_image_src rescue), or to a video's preview image.
export default async function representations(app: FastifyInstance, options: { config: Config }) {
  const { filesPath } = options.config
  const processed = processedVariants(app, filesPath)

  const serve = async (request: FastifyRequest<Params>, reply: FastifyReply) => {
    const blobId = app.signing.verifySignedId(BLOB_MODEL, request.params.signed_blob_id, BLOB_PURPOSE)
    const blob = blobId === undefined ? undefined : app.store.read((m) => m.blobs.findForViewer(blobId, request.user!.id))
    const transformations = blob && app.signing.verifyVariationKey(request.params.variation_key)
    const wanted = blob && transformations ? variationFor(blob, transformations) : null
    if (!blob || !wanted) return reply.sendError(404)
    const { variation, poster } = wanted

    // What the variant is made from: the image itself, or the video's preview image.
    const preview = poster ? app.store.read((m) => m.blobPreviews.find(blob.id)) : undefined
    if (poster && !preview) return reply.sendError(404)
    const source = preview ? { ...preview, filename: blob.filename } : blob
    const fallback = { key: source.key, content_type: source.content_type, filename: preview ? `${filenameBase(blob.filename)}.jpg` : blob.filename }

    let variant = null
    try {
      variant = await processed(source, variation)
    } catch (error) {
      request.log.warn({ blob_id: blob.id, err: (error as Error).message }, 'representation not made; serving the original')
    }
    const served = variant ? { key: variant.key, content_type: variant.content_type, filename: `${filenameBase(blob.filename)}.${variation.transformations.format.toLowerCase()}` } : fallback
    return sendStoredFile(request, reply, diskPath(filesPath, served.key), served)
  }
  app.get(`${REPRESENTATION_ROUTE_PREFIX}/:signed_blob_id/:variation_key/*`, serve)
  app.get('/rails/active_storage/representations/:signed_blob_id/:variation_key/*', serve)
}
