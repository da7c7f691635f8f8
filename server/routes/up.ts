import type { FastifyInstance } from 'fastify'

const PAGE = '<!DOCTYPE html><html><body style="background-color: green"></body></html>\n'

// The health check the harness polls (as Rails' /up renders it).
export default async function up(app: FastifyInstance) {
  app.get('/up', { config: { allowUnauthenticated: true } }, async (_request, reply) => {
    app.store.read((m) => m.accounts.first())
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(PAGE)
  })
}
