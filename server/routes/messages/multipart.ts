import type { FastifyRequest } from 'fastify'
import type { Config } from '../../config.ts'
import type { StoredUpload } from '../../lib/uploads.ts'
import { readMultipartForm } from '../multipart-form.ts'
import { MAX_BODY_LENGTH } from './body.ts'

export { multipartBoundary, sanitizeFilename, UploadRefused } from '../multipart-form.ts'

export interface MultipartMessage {
  fields: Record<string, string>
  upload: StoredUpload | null
  filename: string
}

// The parts of a message post with a file (the composer's upload), streamed: fields kept as
// strings, the one message[attachment] file straight to disk. Anything the client got wrong is
// an UploadRefused (a file over the limit is a 413, as upstream's) and whatever was stored so
// far is removed again; only a failure of our own (the disk) is thrown as it is.
export async function readMultipart(request: FastifyRequest, config: Config): Promise<MultipartMessage> {
  const form = await readMultipartForm(request, config, { fileField: 'message[attachment]', fields: 10, fieldBytes: MAX_BODY_LENGTH * 4, tooLargeStatus: 413 })
  return { fields: form.fields, upload: form.file, filename: form.filename }
}
