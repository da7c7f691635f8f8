import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import sharp from 'sharp'
import { inject, sameOrigin } from '../../helper.ts'

export const BOUNDARY = '----campfireProfile7291'

export interface FilePart {
  name: string
  filename: string
  type: string
  bytes: Buffer
}

// A multipart/form-data body as a browser sends it: text fields in order, then the file.
export function multipartBody(fields: [string, string][], file?: FilePart): Buffer {
  const parts: Buffer[] = fields.map(([name, value]) => Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`))
  if (file) {
    parts.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${file.name}"; filename="${file.filename}"\r\nContent-Type: ${file.type}\r\n\r\n`), file.bytes, Buffer.from('\r\n'))
  }
  parts.push(Buffer.from(`--${BOUNDARY}--\r\n`))
  return Buffer.concat(parts)
}

export function sendMultipart(app: FastifyInstance, cookie: string, url: string, payload: Buffer, method: 'POST' | 'PATCH' | 'PUT' = 'POST'): Promise<LightMyRequestResponse> {
  return inject(app, cookie, { method, url, payload, headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, ...sameOrigin } })
}

// The profile's avatar form: _method=patch and the file.
export function uploadAvatar(app: FastifyInstance, cookie: string, file: Partial<FilePart> & { bytes: Buffer }): Promise<LightMyRequestResponse> {
  const part = { name: 'user[avatar]', filename: 'moon.png', type: 'image/png', ...file }
  return sendMultipart(app, cookie, '/users/me/profile', multipartBody([['_method', 'patch']], part))
}

export function png(width: number, height: number, colour = { r: 200, g: 80, b: 40 }): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: colour } }).png().toBuffer()
}

export function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name))
}

export function value<T>(app: FastifyInstance, sql: string, ...params: unknown[]): T {
  return app.store.read((m) => m.db.prepare(sql).pluck().get(...params)) as T
}

export function rows<T>(app: FastifyInstance, sql: string, ...params: unknown[]): T[] {
  return app.store.read((m) => m.db.prepare(sql).all(...params)) as T[]
}

export function flashOf(response: LightMyRequestResponse): { notice?: string; alert?: string } {
  const cookie = response.cookies.find((c) => c.name === 'flash')
  return cookie ? JSON.parse(decodeURIComponent(cookie.value)) : {}
}
