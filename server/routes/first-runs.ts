import type { FastifyInstance } from 'fastify'
import { field } from '../plugins/body.ts'
import { AccountAlreadyExists, firstRun } from '../models/first-run.ts'
import { readPerson } from './person-form.ts'

export default async function firstRuns(app: FastifyInstance) {
  const options = { config: { allowUnauthenticated: true } }

  app.get('/first_run', options, async (_request, reply) => {
    if (app.store.read((m) => m.accounts.first())) return reply.redirect('/', 302)
    return reply.view('first_runs/show')
  })

  app.post('/first_run', options, async (request, reply) => {
    if (app.store.read((m) => m.accounts.first())) return reply.redirect('/', 302)
    const person = readPerson(request.body)
    if ('error' in person) {
      return reply.view('first_runs/show', { error: person.error, name: field(request.body, 'user', 'name'), emailAddress: field(request.body, 'user', 'email_address') }, 422)
    }
    const passwordDigest = await app.passwords.hash(person.password)
    try {
      const { userId } = await app.store.write((m) => firstRun(m, { ...person, passwordDigest }))
      await reply.startSession(userId)
    } catch (error) {
      if (!(error instanceof AccountAlreadyExists)) throw error
    }
    return reply.redirect('/', 302)
  })
}
