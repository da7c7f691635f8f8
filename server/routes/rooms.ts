import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { requestOrigin } from '../plugins/security.ts'
import type { MessageRow } from '../models/message.ts'
import type { RoomRow } from '../models/room.ts'
import { globalIdParam } from '../lib/rails/signing.ts'
import { LAST_ROOM_COOKIE } from './welcome.ts'
import { positiveId, roomFor } from './room-scoped.ts'

const EDIT_KINDS: Record<string, string> = { 'Rooms::Open': 'opens', 'Rooms::Closed': 'closeds', 'Rooms::Direct': 'directs' }
type RoomParams = { Params: { id?: string; room_id?: string; message_id?: string } }

export default async function rooms(app: FastifyInstance) {
  function notFound(reply: FastifyReply) {
    return reply.flash({ alert: 'Room not found or inaccessible' }).redirect('/', 302)
  }

  function show(request: FastifyRequest<RoomParams>, reply: FastifyReply) {
    const user = request.user!
    const page = app.store.read((m) => {
      const room = roomFor(m, request, request.params.id ?? request.params.room_id)
      if (!room) return null
      const targetId = positiveId(request.params.message_id)
      const target = targetId === null ? undefined : m.messages.findInRoom(targetId, room.id)
      const rows: MessageRow[] = target ? m.messagePages.pageAround(target) : m.messagePages.lastPage(room.id)
      const original = m.rooms.original()
      return {
        room,
        messages: m.messageDisplay.load(rows, [room]),
        roomName: displayName(m.messageDisplay.roomNames([room]).get(room.id) ?? '', room, m, user),
        unread: m.memberships.find(room.id, user.id)?.unread_at != null,
        invitation: original?.id === room.id && m.rooms.fewerMessagesThan(room.id, 41),
        highlightId: target?.id ?? null,
      }
    })
    if (!page) return notFound(reply)
    if (page.unread) void app.store.write((m) => m.memberships.read(page.room.id, user.id)).catch((err) => request.log.warn({ err }, 'marking read failed'))
    reply.setCookie(LAST_ROOM_COOKIE, String(page.room.id), { path: '/', maxAge: 20 * 365 * 24 * 3600, sameSite: 'lax' })
    const origin = requestOrigin(request)
    return reply.view('rooms/show', {
      ...page,
      origin,
      editKind: EDIT_KINDS[page.room.type] ?? 'opens',
      messagesHtml: app.messageRenderer.renderAll(page.messages, origin),
      streamName: app.signing.signStreamName(`${globalIdParam(page.room.type, page.room.id)}:messages`),
    })
  }

  app.get('/rooms', async (request, reply) => {
    const room = app.store.read((m) => m.rooms.newestForUser(request.user!.id))
    return reply.redirect(room ? `/rooms/${room.id}` : '/', 302)
  })
  app.get('/rooms/:id', show)
  app.get('/rooms/:room_id/@:message_id', show)
}

// A direct room is named for the other people in it (or for yourself, alone in it).
function displayName(sharedName: string, room: RoomRow, models: Parameters<typeof roomFor>[0], viewer: { id: number; name: string }): string {
  if (room.type !== 'Rooms::Direct') return room.name ?? sharedName
  const others = models.rooms.memberNames(room.id).filter((member) => member.id !== viewer.id)
  if (others.length === 0) return viewer.name
  const names = others.map((member) => member.name)
  return names.length === 1 ? names[0]! : names.length === 2 ? `${names[0]} and ${names[1]}` : `${names.slice(0, -1).join(', ')}, and ${names[names.length - 1]}`
}
