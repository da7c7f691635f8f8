import type { MissedMessage, Recipient } from '../models/email/missed-messages.ts'
import { parseDbTime } from '../lib/time.ts'

// The email about missed mentions and Pings: its subject, the data of its HTML part
// (views/mailers/missed_messages.eta) and its plain-text part. Each message is plain text (the
// search index's text of its rich text), so markup in a message can only ever be shown as text.
const MAX_TEXT = 1500

export interface EmailMessage {
  sender: string
  place: string
  time: string
  text: string
  attachment: string | null
  permalink: string
}

export interface MissedMessagesEmail {
  subject: string
  text: string
  view: {
    accountName: string
    heading: string
    messages: EmailMessage[]
    more: boolean
    roomsUrl: string
    unsubscribeUrl: string
    profileUrl: string
  }
}

export function missedMessagesEmail(input: {
  accountName: string
  recipient: Recipient
  messages: readonly MissedMessage[]
  more: boolean
  // APP_URL, which every link starts with.
  origin: string
  unsubscribeUrl: string
}): MissedMessagesEmail {
  const { accountName, messages, origin } = input
  const shown = messages.map((m) => ({
    sender: m.creatorName,
    place: m.direct ? 'Ping' : m.roomName,
    time: formatTime(m.createdAt),
    text: shorten(m.text.trim()),
    attachment: m.attachment,
    permalink: `${origin}/rooms/${m.roomId}/@${m.id}`,
  }))
  const heading = subjectFor(messages)
  const subject = `${heading} (${accountName})`
  const view = { accountName, heading, messages: shown, more: input.more, roomsUrl: `${origin}/`, unsubscribeUrl: input.unsubscribeUrl, profileUrl: `${origin}/users/me/profile` }
  return { subject, text: plainText(view), view }
}

function subjectFor(messages: readonly MissedMessage[]): string {
  const first = messages[0]!
  if (messages.length > 1) return `You missed ${messages.length} messages`
  return first.direct ? `${first.creatorName} sent you a Ping` : `${first.creatorName} mentioned you in ${first.roomName}`
}

function plainText(view: MissedMessagesEmail['view']): string {
  const lines = [view.accountName, '', `${view.heading}:`, '']
  for (const m of view.messages) {
    lines.push(`${m.sender} — ${m.place} — ${m.time}`)
    if (m.text) lines.push(m.text)
    if (m.attachment) lines.push(`Attachment: ${m.attachment}`)
    lines.push(`Open it: ${m.permalink}`, '')
  }
  if (view.more) lines.push(`There is more waiting for you: ${view.roomsUrl}`, '')
  lines.push('—', 'You get this email because you were mentioned or sent a Ping while you were away.')
  lines.push(`Stop these emails: ${view.unsubscribeUrl}`, `Change it in your profile: ${view.profileUrl}`)
  return lines.join('\n') + '\n'
}

function shorten(text: string): string {
  const characters = [...text]
  return characters.length <= MAX_TEXT ? text : characters.slice(0, MAX_TEXT - 1).join('') + '…'
}

function formatTime(dbTime: string): string {
  const ms = parseDbTime(dbTime)
  if (ms === null) return ''
  return new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(new Date(ms)) + ' UTC'
}
