import { connect } from 'node:net'
import { freeLoopbackPort } from '../../server/lib/free-port.ts'

// A loopback port nothing listens on now (the server's own helper, which Litestream's metrics
// port comes from too).
export function freePort(): Promise<number> {
  return freeLoopbackPort()
}

// Whether something accepts connections on the loopback port.
export function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => (socket.end(), resolve(true)))
    socket.once('error', () => resolve(false))
  })
}
