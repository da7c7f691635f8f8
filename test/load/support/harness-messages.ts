// What the harness seed posts after the fixtures (fixtures/seeds/default.rb of the verification
// harness): Designers gets one message of every presentation type, the busy room its 120 messages
// and Bender's build notice, the direct rooms a short conversation each. Times are absolute, from
// the seed's clock.
import { marshalDump } from '../../../server/lib/rails/variation.ts'
import { globalId } from '../../../server/lib/rails/signing.ts'
import { escapeAttribute } from '../../../server/models/rich-text/serialize.ts'
import { ATTACHMENT_TAG, MENTION_CONTENT_TYPE, OPENGRAPH_CONTENT_TYPE } from '../../../server/models/rich-text/index.ts'
import type { HarnessFiles } from './harness-files.ts'

export const HARNESS_NOW = Date.UTC(2026, 2, 2, 16, 0, 0)
const MINUTE = 60_000
const HOUR = 60 * MINUTE

export type HarnessPerson = 'david' | 'jason' | 'jz' | 'kevin' | 'bender' | 'rita' | 'mallory' | 'deploy_bot' | 'old_bot' | 'loner'
export type HarnessRoom = 'pets' | 'hq' | 'watercooler' | 'designers' | 'david_and_jason' | 'david_and_kevin' | 'bender_and_kevin' | 'quiet' | 'archive' | 'broken' | 'group_direct'

// How a body names people: a mention as the composer writes it, or as Rails 7 signed it.
export interface Mentions {
  mention: (who: HarnessPerson) => string
  marshalEraMention: (who: HarnessPerson) => string
}

export interface BoostSpec {
  by: HarnessPerson
  content: string
  at: number
  label?: string
}

export interface MessageSpec {
  room: HarnessRoom
  by: HarnessPerson
  at: number
  label?: string
  // Posted through the composer's path (sanitised, as Action Text stores it).
  body?: string | ((mentions: Mentions) => string)
  // Then rewritten in place, bypassing the sanitiser: a body an older version of the app saved.
  raw?: (mentions: Mentions) => string
  attachment?: keyof HarnessFiles
  revised?: { at: number; body: string }
  boosts?: BoostSpec[]
}

// The Lexxy serialization of a mention: the sgid, and the mention partial as its content.
export function mentionHtml(sgid: string, person: { id: number; name: string }): string {
  const content = `<div class="mention" sgid="${sgid}">\n  <a title="${person.name}" class="btn avatar" data-turbo-frame="_top" href="/users/${person.id}"><img aria-hidden="true" width="48" height="48" src="/users/${person.id}/avatar"></a>\n  ${person.name}\n</div>\n`
  return `<${ATTACHMENT_TAG} sgid="${escapeAttribute(sgid)}" content-type="${MENTION_CONTENT_TYPE}" content="${escapeAttribute(content)}"></${ATTACHMENT_TAG}>`
}

// A mention as Rails 7 signed it: the legacy envelope around a Marshal-serialized GlobalID, in
// strict Base64. Its signature no longer verifies (the harness writes a placeholder HMAC), which
// upstream tolerates for people (lib/rails_ext/action_text_attachables.rb).
export function marshalEraMentionHtml(userId: number): string {
  const message = marshalDump(globalId('User', userId)).toString('base64')
  const envelope = Buffer.from(JSON.stringify({ _rails: { message, exp: null, pur: 'attachable' } })).toString('base64')
  return `<${ATTACHMENT_TAG} sgid="${envelope}--0123456789abcdef0123456789abcdef01234567" content-type="${MENTION_CONTENT_TYPE}"></${ATTACHMENT_TAG}>`
}

// The Lexxy serialization of an unfurled link (the card HTML as the attachment's content).
function opengraphEmbed(embed: { href: string; title: string; description: string; image: string }): string {
  const content = `<actiontext-opengraph-embed><div class="og-embed gap "> <div class="og-embed__content"><div class="og-embed__title"><a href="${embed.href}" rel="noreferrer" target="_blank">${escapeAttribute(embed.title)}</a></div> <div class="og-embed__description">${escapeAttribute(embed.description)}</div></div><div class="og-embed__image"><img src="${embed.image}" class="image center" alt="" /></div></div></actiontext-opengraph-embed>`
  return `<${ATTACHMENT_TAG} content-type="${OPENGRAPH_CONTENT_TYPE}" content="${escapeAttribute(content)}"></${ATTACHMENT_TAG}>`
}

// 2026-03-01 09:00 UTC, the day before the fixtures' messages.
const DESIGNERS_DAY = Date.UTC(2026, 2, 1, 9, 0)
const t = (minutes: number) => DESIGNERS_DAY + minutes * MINUTE

const LONG = [
  "<p>Here's the plan for the <strong>spring launch</strong>, as discussed on <em>Friday</em>:</p>",
  '<ol><li>Finish the onboarding copy</li><li>Record the walkthrough video</li><li>Ship it on <code>2026-03-16</code></li></ol>',
  '<blockquote>Simplicity is prerequisite for reliability.</blockquote>',
  '<p>Everything else can wait. The details are on <a href="https://example.com/launch">the launch page</a>.</p>',
  '<ul><li>Design review on Tuesday</li><li>Copy review on Wednesday</li></ul>',
  '<h2>Open questions</h2>',
  '<p>We still need to decide whether the walkthrough video should autoplay, how long the free trial runs, and who owns the announcement post. ' +
    "None of these block the build, but all of them block the launch, so let's get answers by Thursday. If you have opinions, now is the time to share them, " +
    'preferably with reasons, alternatives, and a rough idea of what each option would cost us in time and attention.</p>',
].join(' ')

const TABLE = '<figure class="lexxy-content__table-wrapper"><table><tbody> <tr><th><p>Name</p></th><th><p>Role</p></th><th><p>Points</p></th></tr> ' +
  '<tr><td><p>Jason</p></td><td><p>Design</p></td><td><p>10</p></td></tr> <tr><td><p>Kevin</p></td><td><p>Programming</p></td><td><p>7</p></td></tr> </tbody></table></figure>'

const TWEET = '<div>https://twitter.com/37signals/status/1750290547908952568<action-text-attachment content-type="application/vnd.actiontext.opengraph-embed" ' +
  'url="https://pbs.twimg.com/profile_images/1671940407633010689/avatar_200x200.jpg" href="https://twitter.com/37signals/status/1750290547908952568" ' +
  'filename="37signals (@37signals)" caption="We\'re back up on all apps, everyone."></action-text-attachment></div>'

const DESIGNERS: MessageSpec[] = ([
  { label: 'plain', by: 'jason', at: t(0), body: '<p>Morning! Anyone around?</p>' },
  { label: 'threaded', by: 'jason', at: t(2), body: '<p>Coffee first, then the launch plan.</p>' },
  { label: 'long', by: 'jz', at: t(10), body: LONG },
  { label: 'emoji', by: 'kevin', at: t(20), body: '<p>🎉🔥</p>' },
  { label: 'code', by: 'david', at: t(30), body: '<p>The helper we talked about:</p><pre data-language="ruby">def greet(name)<br>  "Hello, #{name}!"<br>end</pre>' },
  { label: 'code_plain', by: 'jz', at: t(36), body: '<pre>plain preformatted\n  text without a language</pre>' },
  { label: 'table', by: 'jason', at: t(40), body: TABLE },
  { label: 'formatting', by: 'jz', at: t(50), body: '<p>Hello <s>struck</s> <u>underlined</u> <mark>marked</mark> and <strong>bold</strong> <em>italic</em> <del>deleted</del>.</p>' },
  { label: 'mention', by: 'david', at: t(60), body: (m) => `<p>Hey ${m.mention('kevin')}, can you check the table above?</p>` },
  { label: 'mention_marshal', by: 'jason', at: t(70), body: '<p>placeholder</p>', raw: (m) => `<div>Thanks ${m.marshalEraMention('david')}, that was from the old days.</div>` },
  { label: 'sound_image', by: 'kevin', at: t(80), body: '/play 56k' },
  { label: 'sound_text', by: 'jz', at: t(90), body: '/play bell' },
  {
    label: 'opengraph', by: 'david', at: t(100),
    body: '<p>This is what we\'re up against: <a href="https://example.com/cookies">https://example.com/cookies</a></p> ' +
      opengraphEmbed({ href: 'https://example.com/cookies', title: 'Free cookies for everyone', description: 'A bakery gives away a cookie to anyone who asks nicely, every day at noon.', image: 'https://example.com/og/cookies.jpg' }),
  },
  {
    label: 'solo_unfurl', by: 'jason', at: t(110),
    body: '<p><a href="https://example.com/launch">https://example.com/launch</a></p> ' +
      opengraphEmbed({ href: 'https://example.com/launch', title: 'Spring launch', description: 'Everything you need to know about the spring launch.', image: 'https://example.com/og/launch.jpg' }),
  },
  { label: 'opengraph_trix_tweet', by: 'kevin', at: t(120), body: '<p>placeholder</p>', raw: () => TWEET },
  { label: 'autolink', by: 'jz', at: t(125), body: '<p>Docs are at https://example.com/docs and the old ones at http://example.org/docs</p>' },
  { label: 'image', by: 'kevin', at: t(130), attachment: 'moon', boosts: [{ by: 'jason', content: '🌕', at: t(131) }] },
  { label: 'image_large', by: 'jason', at: t(140), attachment: 'blackHole' },
  { label: 'video', by: 'jz', at: t(150), attachment: 'video' },
  { label: 'file', by: 'jason', at: t(160), attachment: 'notes' },
  { label: 'file_bmp', by: 'kevin', at: t(170), attachment: 'bmp' },
  { label: 'bot', by: 'deploy_bot', at: t(180), body: '<p>Deployed campfire@4f2c1e9 to production ✅</p>' },
  { label: 'by_deactivated_user', by: 'rita', at: t(190), body: "<p>I'll be out of office next week.</p>" },
  { label: 'edited', by: 'david', at: t(200), body: '<p>Launch is on the 15th.</p>', revised: { at: t(203), body: '<p>Launch is on the 16th.</p>' } },
  { label: 'unboosted', by: 'jz', at: t(210), body: '<p>Nobody boosted this one.</p>' },
  {
    label: 'boosted_many', by: 'kevin', at: t(220), body: '<p>Big news: the beta is open!</p>',
    boosts: [
      { by: 'david', content: '👍', at: t(221) }, { by: 'jz', content: '🎉', at: t(222) }, { by: 'jason', content: 'Finally!', at: t(223) },
      { by: 'kevin', content: '❤️', at: t(224) }, { by: 'rita', content: '😂', at: t(225) }, { by: 'david', content: '+1', at: t(226) },
    ],
  },
  { label: 'boosted_one', by: 'jason', at: t(230), body: '<p>Lunch is here.</p>', boosts: [{ by: 'jz', content: '🍕', at: t(231), label: 'jz_on_boosted_one' }] },
  { label: 'boosted_by_david', by: 'jz', at: t(240), body: "<p>Who's reviewing the copy?</p>", boosts: [{ by: 'david', content: 'Me!', at: t(241), label: 'david_on_boosted_by_david' }] },
] satisfies Omit<MessageSpec, 'room'>[]).map((spec) => ({ ...spec, room: 'designers' }))

const BUSY_LINES = [
  'Did anyone see the game last night?', 'Coffee machine is fixed!', "I'm heading out for lunch.",
  'New plants in the kitchen.', 'Who took my stapler?', 'Friday demo is at 3pm.',
  'The wifi is flaky again.', 'Congrats on the launch!', 'Anyone up for a walk?', 'Back in 5.',
]
const BUSY_AUTHORS: HarnessPerson[] = ['david', 'jason', 'david', 'jason', 'bender']
// 2026-02-28 08:00 UTC; busy_001 is seven minutes later.
const BUSY_START = Date.UTC(2026, 1, 28, 8, 0)
export const BUSY_COUNT = 120

export function busyLabel(n: number): string {
  return `busy_${String(n).padStart(3, '0')}`
}

// 120 older messages before the fixtures' ten, so the busy room pages (40 per page).
const WATERCOOLER: MessageSpec[] = [
  ...Array.from({ length: BUSY_COUNT }, (_, index): MessageSpec => {
    const i = index + 1
    return { label: busyLabel(i), room: 'watercooler', by: BUSY_AUTHORS[i % 5]!, at: BUSY_START + i * 7 * MINUTE, body: `<p>${String(i).padStart(3, '0')}. ${BUSY_LINES[i % 10]}</p>` }
  }),
  { label: 'bot_in_watercooler', room: 'watercooler', by: 'bender', at: HARNESS_NOW - 20 * MINUTE, body: '<p>Build 1043 passed.</p>' },
]

const DIRECT: MessageSpec[] = [
  { label: 'direct_first', room: 'david_and_jason', by: 'jason', at: HARNESS_NOW - 5 * HOUR, body: '<p>Got a minute?</p>' },
  { room: 'david_and_jason', by: 'david', at: HARNESS_NOW - 5 * HOUR + 2 * MINUTE, body: "<p>Sure, what's up?</p>" },
  { room: 'david_and_jason', by: 'jason', at: HARNESS_NOW - 5 * HOUR + 3 * MINUTE, body: "<p>The pricing page. Let's talk after lunch.</p>" },
  { room: 'bender_and_kevin', by: 'bender', at: HARNESS_NOW - 4 * HOUR, body: '<p>Your nightly report is ready.</p>' },
  { label: 'group_direct_first', room: 'group_direct', by: 'jz', at: HARNESS_NOW - 3 * HOUR, body: "<p>Group ping: who's in for Thursday?</p>" },
  { label: 'direct_unread', room: 'david_and_kevin', by: 'kevin', at: HARNESS_NOW - 2 * HOUR, body: '<p>Can you approve my PR?</p>' },
]

// In posting order (the order client_message_ids are numbered in).
export const HARNESS_MESSAGES: readonly MessageSpec[] = [...DESIGNERS, ...WATERCOOLER, ...DIRECT]

// The message the Broken room keeps after its author's row is gone.
export const UNRENDERABLE: MessageSpec = { label: 'unrenderable', room: 'broken', by: 'david', at: HARNESS_NOW - 6 * HOUR, body: '<p>This message lost its author.</p>' }
export const MISSING_CREATOR_ID = 999_999
