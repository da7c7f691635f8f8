import type { ExportScope } from '../../models/export/rows.ts'

// README.txt at the top of every export: what it covers and how the files are laid out.
export function readme(scope: ExportScope, exportedAt: string): string {
  const covers = scope.kind === 'account' ? 'the whole account' : scope.kind === 'room' ? `room ${scope.roomId}` : `the messages written by person ${scope.userId}`
  return [
    `Campfire export of ${covers}, taken ${exportedAt}.`,
    '',
    'people.json        the people: id, name, email_address, role, status, bio, created_at',
    'rooms.json         the rooms: id, name, type (open, closed, direct), creator_id, member_ids, and their files',
    'rooms/<id>.json    a room\'s messages, oldest first: author, times (ISO 8601, UTC), the rich text as',
    '                   html and as plain text, boosts, and attachments by their path in this zip',
    'rooms/<id>.html    the same room as a page that opens in a browser from the unpacked zip, offline',
    'attachments/<key>/<filename>   the attached files',
    '',
  ].join('\n')
}
