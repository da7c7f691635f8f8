// Messages typed in a room and not yet answered by the server, kept in localStorage (one list per
// room, in the order they were sent) so that a reload, a closed tab or a lost connection does not
// lose them. Each is the form as it was sent: posting it again with the same client_message_id is
// safe, since the server answers a repeat with the message it already stored.

export interface Unsent {
  clientMessageId: string
  // The form's fields, URL-encoded, as they are posted.
  fields: string
  // The plain text, for the pending copy.
  text: string
  // Why the server refused it, once it has: then it waits for Retry instead of going out again.
  failure?: string
}

// A room's list never grows past this; the oldest go first.
const LIMIT = 100

export class Outbox {
  private readonly key: string

  constructor(roomId: number) {
    this.key = `campfire:unsent:${roomId}`
  }

  all(): Unsent[] {
    try {
      const stored: unknown = JSON.parse(localStorage.getItem(this.key) ?? '[]')
      return Array.isArray(stored) ? stored.filter(isUnsent) : []
    } catch {
      return []
    }
  }

  add(unsent: Unsent): void {
    this.save([...this.all(), unsent].slice(-LIMIT))
  }

  update(clientMessageId: string, change: Partial<Unsent>): void {
    this.save(this.all().map((unsent) => (unsent.clientMessageId === clientMessageId ? { ...unsent, ...change } : unsent)))
  }

  remove(clientMessageId: string): void {
    this.save(this.all().filter((unsent) => unsent.clientMessageId !== clientMessageId))
  }

  private save(list: Unsent[]): void {
    try {
      if (list.length === 0) localStorage.removeItem(this.key)
      else localStorage.setItem(this.key, JSON.stringify(list))
    } catch {
      // Storage full or refused: the page still holds them until it is closed.
    }
  }
}

function isUnsent(value: unknown): value is Unsent {
  const unsent = value as Unsent
  return typeof unsent === 'object' && unsent !== null && typeof unsent.clientMessageId === 'string' && typeof unsent.fields === 'string' && typeof unsent.text === 'string'
}
