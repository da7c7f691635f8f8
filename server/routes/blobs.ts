import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../config.ts'
import { blobPath as diskPath } from '../lib/files.ts'
import { BLOB_MODEL, BLOB_PURPOSE, BLOB_ROUTE_PREFIX } from '../rendering/helpers/attachments.ts'

type Params = { Params: { signed_id: string; '*': string }; Querystring: { disposition?: string } }

// Served with their own type; anything else (HTML, SVG, XML, scripts, unknown) goes out as
// application/octet-stream, as Active Storage's content_types_to_serve_as_binary does.
const SERVABLE = /^(image\/(png|jpeg|gif|webp|avif|tiff)|video\/(mp4|webm|quicktime)|audio\/(mpeg|mp4|ogg|wav|webm|aac)|text\/plain|text\/csv|application\/(pdf|zip|gzip))$/
// Shown in the page rather than downloaded.
const INLINE = /^(image\/(png|jpeg|gif|webp|avif|tiff)|video\/(mp4|webm|quicktime)|audio\/(mpeg|mp4|ogg|wav|webm|aac))$/

// RFC 6266: an ASCII fallback and the exact name as RFC 5987 UTF-8.
export function contentDisposition(disposition: 'inline' | 'attachment', filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '?').replace(/["\\]/g, '\\$&')
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
  return `${disposition}; filename="${ascii}"; filename*=UTF-8''${encoded}`
}

// One "bytes=a-b", "bytes=a-" or "bytes=-n" range (what media elements ask for); anything else
// is answered with the whole file.
export function byteRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | null {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header?.trim() ?? '')
  if (!match || (match[1] === '' && match[2] === '')) return null
  let start: number
  let end: number
  if (match[1] === '') {
    const suffix = Number(match[2])
    if (suffix === 0) return 'unsatisfiable'
    start = Math.max(0, size - suffix)
    end = size - 1
  } else {
    start = Number(match[1])
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1)
  }
  if (start >= size || start > end) return 'unsatisfiable'
  return { start, end }
}

// Sends a stored file with the headers every Active Storage file gets here: its type when it is
// one we serve as itself (else application/octet-stream), inline only for media, nosniff, a
// sandboxing CSP, private caching for an hour, and byte ranges. 404 when the file is missing.
export async function sendStoredFile(
  request: FastifyRequest<{ Querystring: { disposition?: string } }>,
  reply: FastifyReply,
  path: string | null,
  file: { content_type: string | null; filename: string },
): Promise<FastifyReply> {
  const info = path ? await stat(path).catch(() => null) : null
  if (!path || !info?.isFile()) return reply.sendError(404)
  const stored = (file.content_type ?? '').toLowerCase()
  const type = SERVABLE.test(stored) ? stored : 'application/octet-stream'
  const disposition = INLINE.test(type) && request.query.disposition !== 'attachment' ? 'inline' : 'attachment'
  reply
    .header('content-type', type)
    .header('content-disposition', contentDisposition(disposition, file.filename))
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', 'max-age=3600, private')
    .header('content-security-policy', "default-src 'none'; sandbox")
    .header('accept-ranges', 'bytes')
  const range = byteRange(request.headers.range, info.size)
  if (range === 'unsatisfiable') return reply.code(416).header('content-range', `bytes */${info.size}`).send()
  if (range) {
    return reply
      .code(206)
      .header('content-range', `bytes ${range.start}-${range.end}/${info.size}`)
      .header('content-length', range.end - range.start + 1)
      .send(createReadStream(path, range))
  }
  return reply.header('content-length', info.size).send(createReadStream(path))
}

// Rails redirects this to the disk service's short-lived URL; here it serves the file itself,
// to members of the room of a message the blob is attached to (everyone else gets 404).
export default async function blobs(app: FastifyInstance, options: { config: Config }) {
  const serve = async (request: FastifyRequest<Params>, reply: FastifyReply) => {
    const blobId = app.signing.verifySignedId(BLOB_MODEL, request.params.signed_id, BLOB_PURPOSE)
    const blob = blobId === undefined ? undefined : app.store.read((m) => m.blobs.findForViewer(blobId, request.user!.id))
    if (!blob) return reply.sendError(404)
    return sendStoredFile(request, reply, diskPath(options.config.filesPath, blob.key), blob)
  }
  app.get(`${BLOB_ROUTE_PREFIX}/:signed_id/*`, serve)
  app.get('/rails/active_storage/blobs/:signed_id/*', serve)
}
