import fp from 'fastify-plugin'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { isOutOfSpace, ReserveReached } from '../lib/disk-space.ts'

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

// A page of its own (no stylesheet to load, so it works whatever failed): the app's warm
// palette and font stack (public/css/base.css) in light and dark, the status as a heading and a way back.
const ERROR_PAGE_STYLE = [
  ':root{color-scheme:light dark;--bg:oklch(99% 0.003 80);--card:oklch(96.5% 0.006 80);--text:oklch(24% 0.01 60);--muted:oklch(45% 0.01 60);--border:oklch(89% 0.008 80);--accent:oklch(52% 0.19 40)}',
  '@media (prefers-color-scheme:dark){:root{--bg:oklch(18% 0.008 60);--card:oklch(22% 0.01 60);--text:oklch(93% 0.006 80);--muted:oklch(75% 0.01 70);--border:oklch(32% 0.01 60);--accent:oklch(74% 0.16 52)}}',
  'body{margin:0;min-height:100vh;display:grid;place-items:center;background:var(--bg);color:var(--text);font-family:-apple-system,BlinkMacSystemFont,Aptos,Roboto,"Segoe UI","Helvetica Neue",Helvetica,Arial,sans-serif;line-height:1.5}',
  'main{box-sizing:border-box;width:min(28rem,calc(100vw - 2rem));padding:2rem 1.75rem;border:1px solid var(--border);border-radius:1.5rem;background:var(--card);text-align:center}',
  '.error__status{margin:0;color:var(--accent);font-size:0.85rem;font-weight:700;letter-spacing:0.08em;text-transform:uppercase}',
  'h1{margin:0.4rem 0 1.5rem;font-size:1.5rem;line-height:1.25;text-wrap:balance}',
  'a{display:inline-block;padding:0.6em 1.2em;border:1px solid var(--border);border-radius:2em;background:var(--bg);color:inherit;font-weight:600;text-decoration:none}',
  'a:hover{border-color:var(--accent)}a:focus-visible{outline:2px solid var(--accent);outline-offset:2px}',
].join('\n')

export function errorPage(status: number, message: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark"><title>${status} · Campfire</title>
<style>${ERROR_PAGE_STYLE}</style></head>
<body><main class="error"><p class="error__status">Error ${status}</p><h1>${escapeHtml(message)}</h1><a href="/">Back to Campfire</a></main></body>
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
      // An upload refused as it streamed, at the reserve (plugins/disk-space.ts answers it).
      if (error instanceof ReserveReached && request.server.hasDecorator('diskSpace')) return request.server.diskSpace.refuse(request, reply, error.code)
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
