import type { FastifyInstance, FastifyRequest } from 'fastify'
import { decodeQrCodeId, qrCodeSvg } from '../lib/qr-code.ts'

type Params = { Params: { id: string } }
// expires_in 1.year: ActiveSupport's year is 365.2425 days.
const ONE_YEAR_S = 31_556_952

// /qr_code/<URL-safe base64 of a text>: its QR code, for anyone (a phone's camera reads it off
// the screen). The same id always gives the same image, so it is cached for a year.
export default async function qrCodes(app: FastifyInstance) {
  app.get('/qr_code/:id', { config: { allowUnauthenticated: true } }, async (request: FastifyRequest<Params>, reply) => {
    const text = decodeQrCodeId(request.params.id)
    if (text === null) return reply.sendError(400, 'That QR code link is malformed.')
    let svg: string
    try {
      svg = qrCodeSvg(text)
    } catch {
      return reply.sendError(400, 'That text is too long for a QR code.')
    }
    // Exactly image/svg+xml, without a charset: the bytes are ASCII, and clients compare the type.
    return reply.header('content-type', 'image/svg+xml').header('cache-control', `max-age=${ONE_YEAR_S}, public`).send(Buffer.from(svg, 'utf8'))
  })
}
