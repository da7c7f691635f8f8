import type { Models } from '../index.ts'
import type { MessageRow, NewMessage } from '../message.ts'
import type { NewBlob } from '../blob.ts'

// The writes behind posting, editing and deleting: each one is a single transaction.
export function postMessage(models: Models, input: NewMessage): MessageRow {
  const message = models.messages.create(input)
  models.roomReceiving.receive(message)
  return message
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
