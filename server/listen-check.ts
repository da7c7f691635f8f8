// Before the boot opens the database (or a cluster's primary forks its workers): can this host
// listen on HTTP_BIND:HTTP_PORT? An address that is not this host's, a port in use or one that
// needs privileges is one line for "Campfire cannot start: …" instead of a stack from listen().
import { createServer } from 'node:net'

export class ListenProblem extends Error {}

export async function checkListening(port: number, host: string): Promise<void> {
  const server = createServer()
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen({ port, host, exclusive: true }, resolve)
    })
  } catch (error) {
    throw listenProblem(error as NodeJS.ErrnoException, port, host)
  }
  await new Promise((resolve) => server.close(resolve))
}

// What listen()'s error means to an operator, or the error itself when it is something else.
export function listenProblem(error: NodeJS.ErrnoException, port: number, host: string): Error {
  switch (error.code) {
    case 'EADDRINUSE':
      return new ListenProblem(`port ${port} on ${host} is already in use by another program (set HTTP_PORT, or stop the other program)`)
    case 'EADDRNOTAVAIL':
      return new ListenProblem(`HTTP_BIND=${host} is not an address of this host (0.0.0.0 listens on all of them)`)
    case 'EACCES':
      return new ListenProblem(`listening on port ${port} needs privileges this process does not have (use a port above 1023)`)
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new ListenProblem(`HTTP_BIND=${host} cannot be resolved to an address of this host`)
    default:
      return error
  }
}
