import type { ImportContext } from './context.ts'
import { placeholderId } from './context.ts'
import type { SlackConversation } from './export-index.ts'

// Each conversation becomes a room once: a public channel an open room (everyone is in it), a
// private channel a closed room with its members, a DM or group DM a Ping between its people
// (the Ping they already have, when there is one). Archived channels come too and are listed.
// A channel whose name a room already has gets a number after it.
export async function importConversations(context: ImportContext, conversations: SlackConversation[]): Promise<SlackConversation[]> {
  const kept: SlackConversation[] = []
  const names = freeNames(context.read((m) => m.slackRecords.roomNames()))
  const administrator = context.read((m) => m.users.firstAdministrator()?.id)
  for (const conversation of conversations) {
    const known = context.read((m) => m.slackRecords.find('room', conversation.id))
    if (known !== undefined) {
      if (!context.read((m) => m.slackRecords.roomExists(known))) {
        context.report.skip('conversation whose room was deleted after an earlier import')
        continue
      }
      const name = context.read((m) => m.rooms.find(known)?.name) ?? conversation.name
      context.rooms.set(conversation.id, { id: known, name })
      context.report.count('rooms already imported')
      kept.push(conversation)
      continue
    }
    const members = [...new Set(conversation.members.flatMap((id) => context.people.get(id) ?? []))]
    const creator = (conversation.creator && context.people.get(conversation.creator)) || administrator || members[0]
    if (creator === undefined) {
      context.report.skip('conversation with nobody to create its room (no administrator yet)')
      continue
    }
    const room = await createRoom(context, conversation, creator, members, names)
    if (!room) continue
    context.rooms.set(conversation.id, room)
    if (conversation.archived) context.report.archived.push(`#${conversation.name}`)
    kept.push(conversation)
  }
  return kept
}

async function createRoom(context: ImportContext, conversation: SlackConversation, creator: number, members: number[], names: (name: string) => string) {
  const { report } = context
  if (conversation.kind === 'dm' || conversation.kind === 'mpim') {
    if (members.length < 2) return report.skip('Ping with fewer than two known people'), null
    const id = await context.write((m) => {
      const room = m.directRooms.findOrCreateFor(members, members.includes(creator) ? creator : members[0]!)
      m.slackRecords.record('room', conversation.id, room.id)
      return room.id
    }, placeholderId())
    report.count('pings')
    return { id, name: conversation.name }
  }
  const name = names(conversation.name)
  if (name !== conversation.name) report.renamed.push(`#${conversation.name} → ${name}`)
  const id = await context.write((m) => {
    const room = conversation.kind === 'channel' ? m.openRooms.create(name, creator) : m.closedRooms.create(name, creator, [creator, ...members])
    m.slackRecords.record('room', conversation.id, room)
    return room
  }, placeholderId())
  report.count(conversation.kind === 'channel' ? 'open rooms' : 'closed rooms')
  return { id, name }
}

// Names are taken by the rooms there are and by the ones this run has named; each name's next
// number is remembered, so many channels sharing a name take one step each, not a search.
function freeNames(existing: string[]): (name: string) => string {
  const taken = new Set(existing.map((name) => name.toLowerCase()))
  const next = new Map<string, number>()
  return (name) => {
    const base = name.toLowerCase()
    let candidate = name
    if (taken.has(base)) {
      let n = next.get(base) ?? 2
      while (taken.has(`${base} ${n}`)) n++
      next.set(base, n + 1)
      candidate = `${name} ${n}`
    }
    taken.add(candidate.toLowerCase())
    return candidate
  }
}
