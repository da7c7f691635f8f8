import fp from 'fastify-plugin'
import zlib from 'node:zlib'
import { acceptsGzip } from '../rendering/gzip.ts'
import { COMPRESSION, enter } from '../lib/cpu-ledger.ts'

const MIN_BYTES = 1024
// A Turbo Stream answer to a post is small and read at once: compressing it costs more than it saves.
const MIN_TURBO_STREAM_BYTES = 16 * 1024

// Gzips HTML that was not compressed already (cached pages arrive with their compressed bytes and
// a Content-Encoding, and pass through). Small Turbo Stream answers go out as they are.
export default fp(
  async function compression(app) {
    app.addHook('onSend', (request, reply, payload, done) => {
      if (payload === null || payload === undefined || reply.getHeader('content-encoding')) return done(null, payload)
      if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return done(null, payload)
      const type = String(reply.getHeader('content-type') ?? '')
      const turboStream = type.startsWith('text/vnd.turbo-stream.html')
      if (!type.startsWith('text/html') && !turboStream) return done(null, payload)
      const size = Buffer.byteLength(payload)
      if (size < (turboStream ? MIN_TURBO_STREAM_BYTES : MIN_BYTES)) return done(null, payload)
      reply.header('vary', 'accept-encoding')
      if (!acceptsGzip(request.headers['accept-encoding'])) return done(null, payload)
      reply.header('content-encoding', 'gzip')
      reply.removeHeader('content-length')
      const was = enter(COMPRESSION)
      const gzipped = zlib.gzipSync(payload, { level: 6 })
      enter(was)
      done(null, gzipped)
    })
  },
  { name: 'compression' },
)
