import type { Socket } from 'node:net'
import type { FastifyInstance } from 'fastify'

// How long after a sibling came back this worker keeps letting its older connections go.
const REBALANCE_FOR_MS = 60_000

export interface RebalanceMessage {
  campfire: 'rebalance'
  workers: number
}

export function isRebalance(message: unknown): message is RebalanceMessage {
  return (message as RebalanceMessage | null)?.campfire === 'rebalance' && Number.isInteger((message as RebalanceMessage).workers)
}

// While a worker was down, every keep-alive client reconnected to the workers left, and stays
// there. When the primary says a sibling is back, this worker answers the next request of all
// but one in N of the connections it had then with `Connection: close`: each such client
// finishes that answer normally and opens its next connection through the primary, which hands
// it to a worker in turn. Connections opened since are left alone, and none is closed twice.
export function rebalanceKeepAlive(app: FastifyInstance): void {
  const opened = new WeakMap<Socket, number>()
  const decided = new WeakSet<Socket>()
  let since = 0
  let workers = 1
  let seen = 0
  app.server.on('connection', (socket: Socket) => opened.set(socket, Date.now()))
  app.addHook('onSend', (request, reply, payload, done) => {
    if (since !== 0 && Date.now() - since > REBALANCE_FOR_MS) since = 0
    const socket = request.raw.socket
    if (since !== 0 && !decided.has(socket) && (opened.get(socket) ?? Infinity) < since) {
      decided.add(socket)
      if (seen++ % workers !== 0) reply.header('connection', 'close')
    }
    done(null, payload)
  })
  const onMessage = (message: unknown) => {
    if (!isRebalance(message)) return
    since = Date.now()
    workers = message.workers
    seen = 0
  }
  process.on('message', onMessage)
  app.addHook('onClose', async () => void process.off('message', onMessage))
}
