import { createHash } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'

// Rails' fresh_when: a weak ETag and a Last-Modified on the answer, and 304 Not Modified when the
// request's validators match. Both must match when both are sent (If-None-Match against the
// ETag, If-Modified-Since no earlier than Last-Modified); at least one must be sent.
export interface Validators {
  etag: string
  lastModified: Date
}

export function weakEtag(source: string): string {
  return `W/"${createHash('md5').update(source).digest('hex')}"`
}

// A Rails timestamp as stored ("2026-03-01 12:00:00.123456", UTC), to the second HTTP dates carry.
export function railsTimestamp(text: string): Date {
  const date = new Date(`${text.replace(' ', 'T')}Z`)
  return Number.isNaN(date.getTime()) ? new Date(0) : new Date(Math.floor(date.getTime() / 1000) * 1000)
}

function etagMatches(header: string, etag: string): boolean {
  const opaque = etag.replace(/^W\//, '')
  return header.split(',').some((tag) => {
    const candidate = tag.trim()
    return candidate === '*' || candidate.replace(/^W\//, '') === opaque
  })
}

export function isFresh(request: FastifyRequest, validators: Validators): boolean {
  const noneMatch = request.headers['if-none-match']
  const modifiedSince = request.headers['if-modified-since']
  if (noneMatch === undefined && modifiedSince === undefined) return false
  if (noneMatch !== undefined && !etagMatches(noneMatch, validators.etag)) return false
  if (modifiedSince !== undefined) {
    const since = Date.parse(modifiedSince)
    if (Number.isNaN(since) || validators.lastModified.getTime() > since) return false
  }
  return true
}

export function setValidators(reply: FastifyReply, validators: Validators): FastifyReply {
  return reply.header('etag', validators.etag).header('last-modified', validators.lastModified.toUTCString())
}
