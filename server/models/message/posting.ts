import type { Models } from '../index.ts'
import type { MessageRow, NewMessage } from '../message.ts'
import type { NewBlob } from '../blob.ts'
import type { RoomRow } from '../room.ts'
import type { MessageDisplay } from './display.ts'

// The writes behind posting, editing and deleting: each one is a single transaction.
export function postMessage(models: Models, input: NewMessage): MessageRow {
  const message = models.messages.create(input)
  models.roomReceiving.receive(message)
  return message
}

// What a new message's announcement needs, read in one transaction: everything its fragment
// shows, with the presentation_version the fragment is cached under, and the room's members (each
// is told the room is unread).
export interface Announcement {
  display: MessageDisplay
  memberIds: number[]
}

export function announcementOf(models: Models, message: MessageRow, room: RoomRow): Announcement {
  const row = models.messages.find(message.id) ?? message
  const [display] = models.messageDisplay.load([row], [room])
  return { display: display!, memberIds: models.memberships.userIdsIn(room.id) }
}

export interface PostedMessage {
  message: MessageRow
  room: RoomRow
  announcement: Announcement
  // The post repeated one already stored (the same person and client_message_id in this room):
  // nothing was written, and `message` is the stored one.
  repeated?: boolean
}

// A post is idempotent per person and client_message_id (a unique index holds it, migration 013).
// The stored message when this post repeats one in the same room, 'elsewhere' when that person
// used the id in another room, or null for a new id.
export function repeatOf(models: Models, input: NewMessage): MessageRow | 'elsewhere' | null {
  const stored = models.messages.byClientId(input.creatorId, input.clientMessageId)
  if (!stored) return null
  return stored.room_id === input.roomId ? stored : 'elsewhere'
}

// Posting as a member (RoomScoped): null, with nothing written, when the room is not one of the
// creator's. The room and the announcement are read in the writing transaction, on the writer's
// connection, whose pages are warm: after a write the reader's cache starts cold. A repeated post
// answers the stored message; a client_message_id of theirs from another room is 'elsewhere'.
export function postMessageAsMember(models: Models, input: NewMessage): PostedMessage | 'elsewhere' | null {
  const room = models.rooms.findForUser(input.roomId, input.creatorId)
  if (!room) return null
  const repeated = repeatOf(models, input)
  if (repeated === 'elsewhere') return repeated
  if (repeated) return { message: repeated, room, announcement: announcementOf(models, repeated, room), repeated: true }
  return postInto(models, input, room)
}

// A text message written into a room the caller has checked (a bot's), with its announcement;
// the room is read again here, so its name is the one this transaction sees.
export function postMessageIn(models: Models, input: NewMessage, checked: RoomRow): PostedMessage {
  return postInto(models, input, models.rooms.find(checked.id) ?? checked)
}

function postInto(models: Models, input: NewMessage, room: RoomRow): PostedMessage {
  const message = postMessage(models, input)
  const display = models.messageDisplay.loadPosted(message, input.body, room)
  const announcement = display ? { display, memberIds: models.memberships.userIdsIn(room.id) } : announcementOf(models, message, room)
  return { message: Object.assign(message, { presentation_version: announcement.display.presentation_version }), room, announcement }
}

// Message.create_with_attachment!: the blob, the message and the attachment joining them, in
// the same transaction; the file is already on disk by then. `derived` records what was made
// from the file (a video's preview image and poster) against the new blob, in that transaction.
export function postMessageWithAttachment(models: Models, input: NewMessage, blob: NewBlob, derived?: (models: Models, blobId: number) => void): MessageRow {
  const blobId = models.blobs.create(blob)
  derived?.(models, blobId)
  const message = models.messages.create(input)
  models.blobs.attach('attachment', 'Message', message.id, blobId)
  models.roomReceiving.receive(message)
  return message
}

export function reviseMessage(models: Models, message: MessageRow, html: string, plainText: string): string {
  const at = models.messages.revise(message.id, html, plainText)
  models.roomReceiving.touch(message.room_id, at)
  return at
}

// The keys of the blobs it took with it (has_one_attached purges), for their files to be deleted.
export function removeMessage(models: Models, message: MessageRow): string[] {
  const keys = models.blobs.purgeFrom('Message', message.id)
  models.messages.destroy(message.id)
  models.roomReceiving.touch(message.room_id)
  return keys
}

export function boostMessage(models: Models, message: MessageRow, boosterId: number, content: string) {
  const boost = models.boosts.create(message.id, boosterId, content)
  models.messages.touch(message.id)
  models.roomReceiving.touch(message.room_id)
  return boost
}

export function unboostMessage(models: Models, message: MessageRow, boostId: number): void {
  models.boosts.destroy(boostId)
  models.messages.touch(message.id)
  models.roomReceiving.touch(message.room_id)
}
