import type { Models } from '../index.ts'
import type { MessageRow } from '../message.ts'
import { removeMessage } from '../message/posting.ts'
import { ATTACHMENT_TAG } from '../rich-text/names.ts'
import { FORMER_MEMBER } from './erasable.ts'

// What happens to an erased person's messages: deleted, or kept with "A former member" as author.
export type ErasedMessages = 'delete' | 'keep'

export const ERASURE_BATCH = 100

export interface ErasureBatch {
  // Deleted messages, for their live removal.
  removed: MessageRow[]
  // Blob keys whose files go once the batch has committed.
  keys: string[]
  done: boolean
}

// Whether a signed global id in a stored body names the erased person.
export type NamesThem = (sgid: string) => boolean

// Erasing a person (a right to erasure; upstream has none) runs as a few writes: signOut first, then
// their messages a batch per write (eraseMessages until done), then finishErasure. A crash between
// them leaves the person signed out and deactivated, and erasing them again finishes the job.
// Every write runs with secure_delete on, so the freed pages hold zeros, not their words.
export function beginErasure(models: Models, userId: number): boolean {
  if (!models.users.find(userId)) return false
  return withSecureDelete(models, () => (models.erasable.signOut(userId), true))
}

// One batch of their messages: each deleted as a deletion does it, or given to the former member
// with its attached file deleted (the files they uploaded go either way).
export function eraseMessages(models: Models, userId: number, mode: ErasedMessages, limit = ERASURE_BATCH): ErasureBatch {
  return withSecureDelete(models, () => {
    const rows = models.erasable.nextMessages(userId, limit)
    const keys: string[] = []
    const formerMember = mode === 'keep' && rows.length > 0 ? models.erasable.formerMemberId() : null
    for (const message of rows) {
      models.erasable.forgetMessage(message.id)
      if (formerMember === null) keys.push(...removeMessage(models, message))
      else {
        const purged = models.blobs.purgeFrom('Message', message.id)
        // The search text of a file's message is its filename, which goes with the file.
        if (purged.length > 0) models.erasable.forgetSearchText(message.id)
        keys.push(...purged)
        models.erasable.reassignMessage(message.id, formerMember)
      }
    }
    return { removed: mode === 'delete' ? rows : [], keys, done: rows.length < limit }
  })
}

// Everything else of theirs, in one transaction: the rows that name them, their avatar, the rooms
// they made (given to the former member), mentions of them in others' messages (now "@A former
// member", in the body and the search text), and their own row. The triggers move every cache
// version these touch. Returns the avatar's blob keys, or null when there is no such person.
export function finishErasure(models: Models, userId: number, namesThem: NamesThem): string[] | null {
  const person = models.users.find(userId)
  if (!person) return null
  return withSecureDelete(models, () => {
    const keys = models.avatars.detach(userId)
    rewriteMentions(models, person.name, namesThem)
    models.erasable.reassignRooms(userId, models.erasable.formerMemberId())
    models.erasable.deleteTheirRows(userId)
    models.erasable.deleteUser(userId)
    return keys
  })
}

export function optimizeSearchIndex(models: Models): void {
  withSecureDelete(models, () => models.erasable.optimizeSearchIndex())
}

const MENTION = new RegExp(`<${ATTACHMENT_TAG}\\b[^>]*\\ssgid="([^"]*)"[^>]*>[\\s\\S]*?</${ATTACHMENT_TAG}>`, 'gi')

function rewriteMentions(models: Models, name: string, namesThem: NamesThem): void {
  for (const message of models.erasable.messagesNaming(name)) {
    const body = (message.body ?? '').replace(MENTION, (element, sgid: string) => (namesThem(sgid) ? `@${FORMER_MEMBER}` : element))
    if (body === message.body) continue
    models.erasable.rewrite(message.id, body, message.text.replaceAll(`@${name}`, `@${FORMER_MEMBER}`))
  }
}

function withSecureDelete<T>(models: Models, work: () => T): T {
  const before = models.db.pragma('secure_delete', { simple: true })
  models.db.pragma('secure_delete = ON')
  try {
    return work()
  } finally {
    models.db.pragma(`secure_delete = ${Number(before)}`)
  }
}
