import type { Models } from '../index.ts'
import { generateBotToken } from './bot.ts'

const isUniqueViolation = (error: unknown) => (error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE'

// Tries a fresh token until one is not taken (a clash is a 1 in 62^12 event, but the index is unique).
function withFreshToken<T>(write: (token: string) => T): T {
  for (let attempt = 1; ; attempt++) {
    try {
      return write(generateBotToken())
    } catch (error) {
      if (!isUniqueViolation(error) || attempt >= 5) throw error
    }
  }
}

// User.create_bot!: the bot, its webhook when it has a URL, and, as everyone who joins, a
// membership in every open room. One transaction (the caller's).
export function createBot(models: Models, input: { name: string; webhookUrl: string | null }): number {
  const id = withFreshToken((token) => models.bots.insert(input.name, token))
  models.memberships.grantOpenRoomsTo(id)
  if (input.webhookUrl) models.webhooks.save(id, input.webhookUrl)
  return id
}

// User#update_bot!: the name and the webhook together (a blank URL removes the webhook).
export function updateBot(models: Models, id: number, input: { name?: string; webhookUrl?: string | null }): boolean {
  if (!models.bots.findActive(id)) return false
  if (input.name !== undefined) models.bots.rename(id, input.name)
  if (input.webhookUrl !== undefined) models.webhooks.save(id, input.webhookUrl)
  return true
}

// User#reset_bot_key: the old key stops working at once.
export function resetBotKey(models: Models, id: number): boolean {
  return withFreshToken((token) => models.bots.retoken(id, token))
}
