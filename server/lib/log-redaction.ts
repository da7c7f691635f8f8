// Some URLs carry a secret in their path: a session transfer id signs its holder in for four
// hours, a join code lets anyone make an account, and a QR code's path is one of those URLs in
// Base64. Request logs show these paths with the secret cut out.
const SECRET_PATH = /^(\/session\/transfers\/|\/qr_code\/|\/join\/)[^?#]*/

export function redactedUrl(url: string): string {
  return url.replace(SECRET_PATH, '$1[redacted]')
}

interface LoggedRequest {
  method: string
  url: string
  hostname?: string
  ip?: string
  socket?: { remotePort?: number }
}

// Fastify's request serializer, with the URL redacted.
export function requestForLog(request: LoggedRequest) {
  return { method: request.method, url: redactedUrl(request.url), host: request.hostname, remoteAddress: request.ip, remotePort: request.socket?.remotePort }
}
