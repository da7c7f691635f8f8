import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { contentDisposition } from './blobs.ts'
import type { Exports, ExportOwner } from '../plugins/exports.ts'

export const EXPORT_BUSY = 'Another export is being prepared. Try again once it is ready.'

// The finished zip, as a download; 404 until one is ready.
export async function sendExport(request: FastifyRequest, reply: FastifyReply, exports: Exports, owner: ExportOwner, filename: string): Promise<FastifyReply> {
  const path = exports.file(owner)
  const info = path ? await stat(path).catch(() => null) : null
  if (!path || !info?.isFile()) return reply.sendError(404, 'There is no finished export to download.')
  return reply
    .header('content-type', 'application/zip')
    .header('content-disposition', contentDisposition('attachment', filename))
    .header('content-length', info.size)
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
    .send(createReadStream(path))
}

export function exportFileName(kind: string): string {
  return `campfire-${kind}-export-${new Date().toISOString().slice(0, 10)}.zip`
}

// The status as the page shows it.
export function exportView(exports: Exports, owner: ExportOwner) {
  return { status: exports.status(owner), busy: exports.busyFor(owner) }
}
