import fp from 'fastify-plugin'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { isOutOfSpace } from '../lib/disk-space.ts'

const MESSAGES: Record<number, string> = {
  400: 'The request could not be understood.',
  401: 'You need to sign in first.',
  403: 'You are not allowed to do that.',
  404: 'The page you were looking for doesn’t exist.',
  405: 'That method is not allowed here.',
  406: 'That format is not available here.',
  413: 'That request is too large.',
  415: 'That content type is not supported.',
  422: 'The change you wanted was rejected.',
  429: 'Too many requests. Try again in a few minutes.',
  500: 'Something went wrong on our side.',
  503: 'The server is busy. Try again shortly.',
  507: 'The server is out of disk space. Try again in a few minutes.',
}

export function statusMessage(status: number): string {
  return MESSAGES[status] ?? (status >= 500 ? MESSAGES[500]! : MESSAGES[400]!)
}

function wantsJson(request: FastifyRequest): boolean {
  const accept = String(request.headers.accept ?? '')
  return accept.includes('application/json') && !accept.includes('text/html')
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

export function errorPage(status: number, message: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${status} · Campfire</title>
<style>body{font-family:system-ui,sans-serif;display:grid;place-items:center;min-height:90vh;margin:0;color:#333}main{text-align:center;max-width:32rem;padding:1rem}h1{font-size:3rem;margin:0}a{color:inherit}@media (prefers-color-scheme:dark){body{color:#ddd;background:#161412}}</style></head>
<body><main><h1>${status}</h1><p>${escapeHtml(message)}</p><p><a href="/">Back to Campfire</a></p></main></body>
</html>
`
}

export function sendError(request: FastifyRequest, reply: FastifyReply, status: number, message = statusMessage(status)): FastifyReply {
  reply.code(status)
  if (wantsJson(request)) return reply.type('application/json; charset=utf-8').send({ error: message, status })
  return reply.type('text/html; charset=utf-8').send(errorPage(status, message))
}

declare module 'fastify' {
  interface FastifyReply {
    sendError(status: number, message?: string): FastifyReply
  }
}

// One error handler for the whole app: client errors keep their message, server errors are
// logged and answered with a generic page. No stack trace ever leaves the process.
export default fp(
  async function errors(app) {
    app.decorateReply('sendError', function (this: FastifyReply, status: number, message?: string) {
      return sendError(this.request, this, status, message)
    })

    app.setErrorHandler((error: FastifyError, request, reply) => {
      // The storage refused a write for lack of space (plugins/disk-space.ts answers it).
      if (isOutOfSpace(error) && request.server.hasDecorator('diskSpace')) {
        request.server.diskSpace.monitor.sawOutOfSpace()
        return request.server.diskSpace.refuse(request, reply, String(error.code))
      }
      const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 600 ? error.statusCode : 500
      if (status >= 500) request.log.error({ err: error, method: request.method, url: request.url }, 'request failed')
      else request.log.info({ code: error.code, method: request.method, url: request.url, status }, error.message)
      const message = status < 500 && error.code?.startsWith('FST_') ? statusMessage(status) : status < 500 ? error.message : statusMessage(status)
      return sendError(request, reply, status, message)
    })

    app.setNotFoundHandler((request, reply) => sendError(request, reply, 404))
  },
  { name: 'errors' },
)
