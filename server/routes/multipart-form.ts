import { rm } from 'node:fs/promises'
import type { Readable } from 'node:stream'
import type { Multipart } from '@fastify/multipart'
import type { FastifyRequest } from 'fastify'
import type { Config } from '../config.ts'
import { ReserveReached } from '../lib/disk-space.ts'
import { EmptyUpload, storeUpload, UploadTooLarge, type StoredUpload } from '../lib/uploads.ts'
import { parseForm } from '../plugins/body.ts'

// Why an upload was refused: the status and message to answer with.
export class UploadRefused extends Error {
  constructor(readonly status: number, message: string) {
    super(message)
  }
}

// A refused form, with the fields that had arrived before the refusal (to show them again).
export class FormRefused extends UploadRefused {
  constructor(status: number, message: string, readonly body: Record<string, unknown>) {
    super(status, message)
  }
}

export interface MultipartForm {
  // The text fields as sent ("user[name]" → "…"), and nested as a urlencoded form would be.
  fields: Record<string, string>
  body: Record<string, unknown>
  file: StoredUpload | null
  filename: string
}

export interface MultipartFormOptions {
  fileField: string
  maxBytes?: number
  // How many text fields, and how long each may be (64 KiB unless told).
  fields?: number
  fieldBytes?: number
  // The status for a file over the limit: 422, or 413 where upstream's answer is a 413.
  tooLargeStatus?: 413 | 422
}

const MALFORMED = 'The form could not be read.'
export const ONE_FILE = 'Only one file is accepted: send each file on its own.'
const FIELD_BYTES = 64 * 1024

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

// A form with one file (an avatar, a logo, a message's attachment), streamed: the text fields kept as strings, the file
// straight to disk under a new blob key. A file input left empty (no filename, no bytes) is no
// file. Whatever the client got wrong is an UploadRefused: 400 for a body that is not a
// well-formed multipart form (no boundary, cut short), 422 for a file that is too large,
// empty or a second file; the stored file is removed again then. The refusal is a FormRefused, with the fields
// read so far. Only our own failures (the disk) are thrown as they are.
export async function readMultipartForm(request: FastifyRequest, config: Config, options: MultipartFormOptions): Promise<MultipartForm> {
  if (!multipartBoundary(request.headers['content-type'])) throw new FormRefused(400, `${MALFORMED} It has no multipart boundary.`, {})
  const maxBytes = options.maxBytes ?? config.maxUploadBytes
  const form: MultipartForm = { fields: {}, body: {}, file: null, filename: 'file' }
  let malformed = false
  let files = 0
  try {
    const fields = options.fields ?? 20
    const parts = request.parts({ limits: { fileSize: maxBytes, files: 2, fields, parts: fields + 2, fieldSize: options.fieldBytes ?? FIELD_BYTES } })
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
        if (typeof part.value === 'string' && !Object.hasOwn(form.fields, part.fieldname)) form.fields[part.fieldname] = part.value
      } else if (part.filename && files++ > 0) {
        part.file.resume()
        throw new UploadRefused(422, ONE_FILE)
      } else if (part.fieldname === options.fileField && part.filename) {
        form.filename = sanitizeFilename(part.filename)
        try {
          form.file = await storeUpload(config.filesPath, part.file, part.mimetype, maxBytes, request.diskClaim ?? undefined)
        } catch (error) {
          if (error instanceof EmptyUpload) throw error
          if (inputFailed(part.file, error)) malformed = true
          throw error
        }
      } else {
        part.file.resume()
      }
    }
    form.body = parseForm(new URLSearchParams(form.fields).toString())
    return form
  } catch (error) {
    if (form.file) await rm(form.file.path, { force: true })
    const refused = refusal(error, malformed, maxBytes, options.tooLargeStatus ?? 422)
    if (!(refused instanceof UploadRefused)) throw refused
    throw new FormRefused(refused.status, refused.message, parseForm(new URLSearchParams(form.fields).toString()))
  }
}

// Whether a file's upload failed because the request did (its stream errored, or was torn
// down before its end) rather than because our disk did.
function inputFailed(file: Readable, error: unknown): boolean {
  if (typeof (error as { syscall?: unknown } | null)?.syscall === 'string' || error instanceof ReserveReached) return false
  return Boolean(file.errored) || (file.destroyed && !file.readableEnded)
}

function refusal(error: unknown, malformed: boolean, maxBytes: number, tooLargeStatus: number): unknown {
  const { statusCode: status, code } = error as { statusCode?: number; code?: string }
  if (error instanceof UploadTooLarge || code === 'FST_REQ_FILE_TOO_LARGE') return new UploadRefused(tooLargeStatus, `That file is too large: the limit is ${megabytes(maxBytes)}.`)
  if (error instanceof EmptyUpload) return new UploadRefused(422, 'That file is empty.')
  if (error instanceof UploadRefused) return error
  if (status === 413) return new UploadRefused(413, 'That form has too many fields or files.')
  if ((status !== undefined && status >= 400 && status < 500) || malformed) return new UploadRefused(400, MALFORMED)
  return error
}

function megabytes(bytes: number): string {
  return `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`
}
