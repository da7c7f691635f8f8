import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { requestOrigin } from '../plugins/security.ts'
import type { MessageRow } from '../models/message.ts'
import { globalIdParam } from '../lib/rails/signing.ts'
import { LAST_ROOM_COOKIE, rememberRoom } from './tracked-room-visit.ts'
import { directRoomName } from '../lib/sentence.ts'
import { canAdminister } from '../models/user/role.ts'
import { resourceRoutes } from './method-override.ts'
import { sidebarBroadcasts } from './rooms/sidebar-broadcasts.ts'
import { positiveId, roomFor } from './room-scoped.ts'
import { findOrRender, rowsSignature, sendViewAround } from './cached-pages.ts'
import { inviteLinks } from './account/join-codes.ts'
import { isAdministrator } from '../models/user.ts'

const EDIT_KINDS: Record<string, string> = { 'Rooms::Open': 'opens', 'Rooms::Closed': 'closeds', 'Rooms::Direct': 'directs' }
type RoomParams = { Params: { id?: string; room_id?: string; message_id?: string } }

export default async function rooms(app: FastifyInstance) {
  const broadcasts = sidebarBroadcasts(app)
  function notFound(reply: FastifyReply) {
    return reply.flash({ alert: 'Room not found or inaccessible' }).redirect('/', 302)
  }

  // The room page: the messages, the same for every viewer, come from the fragment cache and, as
  // a whole, from the page cache, valid while the room's content_version stays put (or, when it
  // moved, while the same messages at the same presentation versions are on it). The viewer's
  // shell (layout, name, composer) around them is the person's own, cached by what it shows.
  async function show(request: FastifyRequest<RoomParams>, reply: FastifyReply) {
    const user = request.user!
    const origin = requestOrigin(request)
    const roomId = positiveId(request.params.id ?? request.params.room_id)
    const page = roomId === null ? null : app.store.read((m) => {
      const visit = m.rooms.visitFor(roomId, user.id)
      if (!visit) return null
      const { room } = visit
      const targetId = positiveId(request.params.message_id)
      // A room the person marked unread opens at the message they marked (messages/unreads.ts);
      // the mark is looked up only where there is one, not on every visit to an unread room.
      const marked = visit.unread && visit.markedMessageId !== null
      const target = targetId !== null ? m.messages.findInRoom(targetId, room.id) : marked ? m.unreadMarks.markedMessage(room.id, user.id) : undefined
      let rows: MessageRow[] | undefined
      const rowsOf = () => (rows ??= target ? m.messagePages.pageAround(target) : m.messagePages.lastPage(room.id))
      const render = () => app.messageFragments.renderEach(m, rowsOf(), { origin, viewerId: user.id, stats: request.cacheStats, rooms: [room] })
      const messages = findOrRender(app, m, `room:${room.id}:${target?.id ?? 'latest'}:${origin}`, () => rowsSignature(rowsOf()), render, { quick: `v${room.content_version}` })
      const invitation = visit.original && m.rooms.fewerMessagesThan(room, 41)
      return {
        room,
        messages,
        account: m.accounts.first() ?? null,
        roomName: room.type === 'Rooms::Direct' ? directRoomName(m.rooms.memberNames(room.id).filter((p) => p.id !== user.id), user.name) : (room.name ?? ''),
        unread: visit.unread,
        invitation,
        highlightId: target?.id ?? null,
      }
    })
    if (!page) return notFound(reply)
    if (page.unread) await app.store.write((m) => m.memberships.read(page.room.id, user.id))
    rememberRoom(reply, page.room)
    const { messages, account, unread: _unread, room: _room, ...shell } = page
    // The room as the shell shows it: its last activity, which moves with every post, is a slot.
    const { updated_at: updatedAt, content_version: _version, ...room } = page.room
    const data = {
      ...shell,
      room,
      origin,
      editKind: EDIT_KINDS[page.room.type] ?? 'opens',
      streamName: app.signing.signStreamName(`${globalIdParam(page.room.type, page.room.id)}:messages`),
      // The welcome's join link is in the per-request shell, so it is always the current code,
      // and only administrators get the button that replaces it.
      invite: page.invitation ? { ...inviteLinks(app, request), isAdministrator: isAdministrator(user) } : null,
    }
    const shellKey = `${user.id}:${page.room.id}:${page.highlightId ?? 'latest'}:${origin}`
    const slots = { loadedAt: String(app.helpers.epochMs(updatedAt)) }
    return sendViewAround(app, request, reply, { template: 'rooms/show', key: shellKey, data, account, slots }, messages)
  }

  app.get('/rooms', async (request, reply) => {
    const room = app.store.read((m) => m.rooms.newestForUser(request.user!.id))
    return reply.redirect(room ? `/rooms/${room.id}` : '/', 302)
  })
  // The last room's cookie names this room and lasts twenty years from each visit (Max-Age, no
  // date): the same for the same request.
  const memoizedShow = app.memoized(show, { cookies: [LAST_ROOM_COOKIE] })
  app.get('/rooms/:id', memoizedShow)
  app.get('/rooms/:room_id/@:message_id', memoizedShow)

  // Administrators and the room's creator may delete it, with everything in it.
  async function destroy(request: FastifyRequest<RoomParams>, reply: FastifyReply) {
    const room = app.store.read((m) => roomFor(m, request, request.params.id))
    if (!room) return reply.sendError(404)
    if (!canAdminister(request.user!, room)) return reply.sendError(403)
    const members = app.store.read((m) => m.memberships.userIdsIn(room.id))
    const destroyed = await app.store.write((m) => m.roomDestruction.destroyRoom(room.id))
    broadcasts.roomRemoved(room, members)
    if (destroyed && destroyed.orphanedBlobIds.length > 0) void app.unattachedFiles.purge()
    return reply.redirect('/', 302)
  }
  resourceRoutes(app, '/rooms/:id', { DELETE: destroy })
}
