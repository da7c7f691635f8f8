import { createServer } from 'node:net'

// A TCP port free on the loopback address just now, for a program of ours to listen on (the
// system picks it; another program may still take it before ours binds it). The probe is held
// until it closes, so a script awaiting nothing else does not end before the answer.
export function freeLoopbackPort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen({ host, port: 0, exclusive: true }, () => {
      const address = server.address()
      const port = typeof address === 'object' && address !== null ? address.port : 0
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('no free port'))))
    })
  })
}
