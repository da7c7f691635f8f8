import { sameOrigin } from '../helper.ts'

export type Part = { name: string; value: string } | { name: string; filename: string; type: string; data: Buffer }

// A multipart form body, as a browser sends a form with a file, and its headers (same-origin,
// with any others given).
export function multipart(parts: Part[], headers: Record<string, string> = {}): { payload: Buffer; headers: Record<string, string> } {
  const boundary = '----campfire' + Math.random().toString(16).slice(2)
  const chunks: Buffer[] = []
  for (const part of parts) {
    if ('filename' in part) {
      chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"; filename="${part.filename}"\r\nContent-Type: ${part.type}\r\n\r\n`))
      chunks.push(part.data, Buffer.from('\r\n'))
    } else {
      chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"\r\n\r\n${part.value}\r\n`))
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`))
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, ...sameOrigin, ...headers } }
}
