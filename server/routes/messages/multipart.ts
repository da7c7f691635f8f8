import { rm } from 'node:fs/promises'
import type { Readable } from 'node:stream'
import type { Multipart } from '@fastify/multipart'
import type { FastifyRequest } from 'fastify'
import type { Config } from '../../config.ts'
import { EmptyUpload, storeUpload, UploadTooLarge, type StoredUpload } from '../../lib/uploads.ts'
import { MAX_BODY_LENGTH } from './body.ts'

export interface MultipartMessage {
  fields: Record<string, string>
  upload: StoredUpload | null
  filename: string
}

// Why an upload was refused: the status and message to answer with.
export class UploadRefused extends Error {
  constructor(readonly status: number, message: string) {
    super(message)
  }
}

const MALFORMED = 'The upload could not be read.'

// ActiveStorage::Filename#sanitized: no path separators, control or reserved characters.
export function sanitizeFilename(name: string | undefined): string {
  const cleaned = (name ?? '').replace(/[<>:"/\\|?*\u0000-\u001f\u007f]/g, '-').trim().slice(0, 255)
  return cleaned === '' || cleaned === '.' || cleaned === '..' ? 'file' : cleaned
}

// A boundary as RFC 2046 allows it (RFC 2046 says 1–70 characters; we take up to 200), quoted or not.
export function multipartBoundary(contentType: string | undefined): string | null {
  const match = /;\s*boundary=(?:"([^"]{1,200})"|([^";\s]{1,200}))\s*(?:;|$)/i.exec(contentType ?? '')
  return match ? (match[1] ?? match[2])! : null
}

// The parts of a message post with a file (the composer's upload), streamed: fields kept as
// strings, the one message[attachment] file straight to disk. Anything the client got wrong
// (no boundary, a body cut short, too many parts, a file too large or empty) is an
// UploadRefused, and whatever was stored so far is removed again; only a failure of our own
// (the disk) is thrown as it is.
export async function readMultipart(request: FastifyRequest, config: Config): Promise<MultipartMessage> {
  if (!multipartBoundary(request.headers['content-type'])) throw new UploadRefused(400, `${MALFORMED} It has no multipart boundary.`)
  const result: MultipartMessage = { fields: {}, upload: null, filename: 'file' }
  // Set when the request itself failed (a parse error, a premature end): the client's fault,
  // even when it surfaces as the error of the file's write.
  let malformed = false
  try {
    const parts = request.parts({ limits: { fileSize: config.maxUploadBytes, files: 1, fields: 10, parts: 11, fieldSize: MAX_BODY_LENGTH * 4 } })
    while (true) {
      let next: IteratorResult<Multipart>
      try {
        next = await parts.next()
      } catch (error) {
        malformed = true
        throw error
      }
      if (next.done) break
      const part = next.value
      if (part.type === 'field') {
        if (typeof part.value === 'string') result.fields[part.fieldname] = part.value
      } else if (part.fieldname === 'message[attachment]' && !result.upload) {
        result.filename = sanitizeFilename(part.filename)
        try {
          result.upload = await storeUpload(config.filesPath, part.file, part.mimetype, config.maxUploadBytes)
        } catch (error) {
          if (inputFailed(part.file, error)) malformed = true
          throw error
        }
      } else {
        part.file.resume()
      }
    }
    return result
  } catch (error) {
    if (result.upload) await rm(result.upload.path, { force: true })
    throw refusal(error, malformed)
  }
}

// Whether a file's upload failed because the request did (its stream errored, or was torn
// down before its end) rather than because our disk did.
function inputFailed(file: Readable, error: unknown): boolean {
  if (typeof (error as { syscall?: unknown } | null)?.syscall === 'string') return false
  return Boolean(file.errored) || (file.destroyed && !file.readableEnded)
}

function refusal(error: unknown, malformed: boolean): unknown {
  const status = (error as { statusCode?: number }).statusCode
  if (error instanceof UploadTooLarge || status === 413) return new UploadRefused(413, 'That file is too large.')
  if (error instanceof EmptyUpload) return new UploadRefused(422, 'That file is empty.')
  if ((status !== undefined && status >= 400 && status < 500) || malformed) return new UploadRefused(400, MALFORMED)
  return error
}
