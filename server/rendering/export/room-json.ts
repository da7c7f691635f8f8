import type { ExportMessage, ExportRoom } from '../../models/export/rows.ts'
import { isoTime, messageRecord } from './records.ts'

// rooms/<id>.json, written as it is read: {"room": {...}, "messages": [ one message a line ]}.
export function* roomJson(room: ExportRoom, title: string, messages: Iterable<ExportMessage>): Generator<string> {
  const head = { id: room.id, name: room.name, title, created_at: isoTime(room.created_at) }
  yield `{"room":${JSON.stringify(head)},"messages":[`
  let first = true
  for (const row of messages) {
    yield `${first ? '\n' : ',\n'}${JSON.stringify(messageRecord(row))}`
    first = false
  }
  yield '\n]}\n'
}
