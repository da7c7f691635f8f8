import type { ImportContext } from './context.ts'
import { text } from './export-index.ts'
import { personFor } from './people.ts'
import { record, type Json } from './shapes.ts'

const SLACK_ID = /^[A-Z0-9]{2,40}$/
const slackId = (value: unknown): string | null => (typeof value === 'string' && SLACK_ID.test(value) ? value : null)

// Who wrote a message: the person users.json lists; a file comment's commenter (comment.user);
// an integration's bot; a person users.json does not list (another workspace's), kept deactivated.
export async function authorOf(context: ImportContext, message: Json): Promise<number | null> {
  const user = slackId(message.subtype === 'file_comment' ? (record(message.comment).user ?? message.user) : message.user)
  const known = user ? context.people.get(user) : undefined
  if (known !== undefined) return known
  if (message.subtype === 'bot_message' || message.bot_id !== undefined || user === 'USLACKBOT') {
    const bot = await botOf(context, message, user)
    if (bot !== null) return bot
  }
  if (user) return personFor(context, user, text(record(message.user_profile).real_name) ?? text(record(message.user_profile).name), false)
  return null
}

// One Campfire bot for each integration, named as Slack showed it: the message's username, its
// bot_profile's name, or the name bots.json or integration_logs.json gives its bot or app id.
// Integrations that show the same name are one bot, and a bot user of users.json is itself.
async function botOf(context: ImportContext, message: Json, user: string | null): Promise<number | null> {
  const profile = record(message.bot_profile)
  const botId = slackId(message.bot_id) ?? slackId(profile.id)
  const appId = slackId(message.app_id) ?? slackId(profile.app_id)
  const name = text(message.username) ?? text(profile.name)
    ?? [botId, appId].flatMap((id) => (id ? (context.integrations.get(id) ?? []) : []))[0]
    ?? (user === 'USLACKBOT' ? 'Slackbot' : null)
  const botUser = botId ? context.people.get(`bot:${botId}`) : undefined
  if (botUser !== undefined && (name === null || context.names.get(botUser)?.toLowerCase() === name.toLowerCase())) return botUser
  if (name !== null) return personFor(context, `name:${name.toLowerCase()}`, name, true)
  if (botId) return personFor(context, botId, `Slack integration ${botId}`, true)
  return null
}
