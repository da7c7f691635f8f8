import { randomUUID } from 'node:crypto'
import { deactivatedEmail } from '../../models/user/deactivatable.ts'
import { normalizeEmail, STATUSES } from '../../models/user.ts'
import type { ImportContext } from './context.ts'
import { placeholderId } from './context.ts'
import type { SlackPerson } from './export-index.ts'
import { importAvatar } from './files.ts'

// Each Slack person becomes a Campfire person once: the same person matched by email (any
// case), or a new member without a password (deactivated when Slack deleted them, or with
// --deactivate-missing), or a bot without a key. New active members join every open room, as
// anyone who joins does; a person matched keeps everything they had.
export async function importPeople(context: ImportContext, people: SlackPerson[]): Promise<void> {
  context.read((m) => {
    for (const { id, name, status } of m.db.prepare<[], { id: number; name: string; status: number }>('SELECT id, name, status FROM users').all()) {
      context.names.set(id, name)
      if (status === STATUSES.banned) context.banned.add(id)
    }
  })
  for (const person of people) {
    await importPerson(context, person)
    // A bot's messages name it by its bot id, or by the name it shows.
    const id = context.people.get(person.id)
    if (person.bot && id !== undefined && !context.people.has(`bot:name:${person.name.toLowerCase()}`)) context.people.set(`bot:name:${person.name.toLowerCase()}`, id)
    if (person.botId && id !== undefined && !context.people.has(`bot:${person.botId}`)) {
      context.people.set(`bot:${person.botId}`, id)
      if (context.read((m) => m.slackRecords.find('user', `bot:${person.botId}`)) === undefined) await context.write((m) => m.slackRecords.record('user', `bot:${person.botId}`, id), undefined)
    }
  }
}

async function importPerson(context: ImportContext, person: SlackPerson): Promise<void> {
  const { report } = context
  const known = context.read((m) => m.slackRecords.find('user', person.id))
  if (known !== undefined) {
    context.people.set(person.id, known)
    return report.count('people already imported')
  }
  const matched = person.email && !person.bot ? context.read((m) => m.slackRecords.personByEmail(person.email!)) : undefined
  // A deactivated or banned person's email never brings them back as a new member: their Slack
  // self is them, left as they are, until an administrator brings them back.
  const former = matched === undefined && person.email && !person.bot ? context.read((m) => m.emailStanding.inactiveHolder(normalizeEmail(person.email!))) : undefined
  if (matched !== undefined || former !== undefined) {
    const id = (matched ?? former)!
    await context.write((m) => m.slackRecords.record('user', person.id, id), undefined)
    context.people.set(person.id, id)
    context.names.set(id, context.names.get(id) ?? person.name)
    return report.count(former !== undefined || context.read((m) => m.users.find(id)?.status) !== 0 ? 'people matched not active' : 'people matched')
  }
  const id = await createPerson(context, person)
  if (!person.bot) await importAvatar(context, person.id, id)
}

export async function createPerson(context: ImportContext, person: SlackPerson): Promise<number> {
  const deactivated = person.deleted || (context.deactivateMissing && !person.bot)
  const email = person.bot ? null : deactivated ? deactivatedEmail(person.email, randomUUID()) : person.email
  const id = await context.write((m) => {
    const made = m.slackRecords.createPerson({ name: person.name, emailAddress: email, bio: person.title, bot: person.bot, deactivated })
    if (!deactivated) m.memberships.grantOpenRoomsTo(made)
    m.slackRecords.record('user', person.id, made)
    return made
  }, placeholderId())
  context.people.set(person.id, id)
  context.names.set(id, person.name)
  context.report.count(person.bot ? 'bots created' : 'people created')
  if (deactivated && !person.bot) context.report.count('people created deactivated')
  return id
}

// The author of a message whose person users.json does not list: a bot by its bot id, or a
// person from another workspace. Each becomes a deactivated person (or a bot) once.
export async function personFor(context: ImportContext, slackId: string, name: string | null, bot: boolean): Promise<number> {
  const key = bot ? `bot:${slackId}` : slackId
  const found = context.people.get(key) ?? context.read((m) => m.slackRecords.find('user', key))
  if (found !== undefined) return context.people.set(key, found), found
  return createPerson(context, { id: key, name: name ?? (bot ? 'Slack bot' : slackId), email: null, title: null, deleted: !bot, bot, botId: null })
}
