import multipart from '@fastify/multipart'
import type { FastifyInstance } from 'fastify'
import type { Config } from '../config.ts'
import { AccountAlreadyExists, firstRun } from '../models/first-run.ts'
import { readSignup } from './person-form.ts'
import { removeFiles } from '../lib/files.ts'

export default async function firstRuns(app: FastifyInstance, options: { config: Config }) {
  const { config } = options
  const open = { config: { allowUnauthenticated: true } }
  await app.register(multipart, { throwFileSizeLimit: true })

  app.get('/first_run', open, async (_request, reply) => {
    if (app.store.read((m) => m.accounts.first())) return reply.redirect('/', 302)
    return reply.view('first_runs/show')
  })

  app.post('/first_run', open, async (request, reply) => {
    if (app.store.read((m) => m.accounts.first())) return reply.redirect('/', 302)
    const signup = await readSignup(request, config)
    if ('error' in signup) {
      if (signup.status !== 422) return reply.sendError(signup.status, signup.error)
      return reply.view('first_runs/show', { error: signup.error, name: signup.name, emailAddress: signup.emailAddress }, 422)
    }
    const { person, avatar } = signup
    const passwordDigest = await app.passwords.hash(person.password)
    try {
      const { userId } = await app.store.write((m) => {
        const created = firstRun(m, { ...person, passwordDigest })
        if (avatar) m.avatars.attach(created.userId, avatar.original, avatar.square)
        return created
      })
      await reply.startSession(userId)
    } catch (error) {
      if (avatar) await removeFiles(avatar.paths)
      if (!(error instanceof AccountAlreadyExists)) throw error
    }
    return reply.redirect('/', 302)
  })
}
