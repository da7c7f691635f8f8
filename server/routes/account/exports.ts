import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { isAdministrator } from '../../models/user.ts'
import { parseId } from '../rooms/room-scope.ts'
import { EXPORT_BUSY, exportFileName, exportView, sendExport } from '../export-download.ts'

type ExportRequest = FastifyRequest<{ Body: { room_id?: unknown } | undefined }>

// The account's export, for administrators: the page with its status, preparing a new one in the
// background (the whole account, or one room), and downloading the finished zip.
export default async function accountExports(app: FastifyInstance) {
  app.addHook('preHandler', async (request, reply) => {
    if (!isAdministrator(request.user!)) return reply.sendError(403)
  })

  app.get('/account/export', async (_request, reply) => {
    const rooms = app.store.read((m) => m.exportRows.sharedRooms())
    return reply.view('accounts/exports/show', { title: 'Export', ...exportView(app.exports, 'account'), rooms, action: '/account/export' })
  })

  app.post('/account/export', async (request: ExportRequest, reply: FastifyReply) => {
    const field = request.body?.room_id
    if (field !== undefined && typeof field !== 'string') return reply.sendError(400, 'The export form could not be read.')
    let roomId: number | null = null
    if (field) {
      roomId = parseId(field)
      if (roomId === null || !app.store.read((m) => m.exportRows.findRoom(roomId!))) return reply.sendError(404, 'There is no such room.')
    }
    const started = app.exports.start('account', roomId === null ? { kind: 'account' } : { kind: 'room', roomId })
    if (started === 'busy') return reply.sendError(409, EXPORT_BUSY)
    request.log.info({ roomId }, 'started an export')
    return reply.redirect('/account/export', 302)
  })

  app.get('/account/export.zip', (request, reply) => sendExport(request, reply, app.exports, 'account', exportFileName('account')))
}
