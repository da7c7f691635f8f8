// bench:push's push service, in a process of its own so its TLS work never delays the load
// generator's own event loop: HTTPS on loopback with the certificate and key it is given
// (PUSH_CERT, PUSH_KEY); PUSH_MODE=hang takes every request and never answers, accept answers 201.
// Prints {"port":N} once listening; on SIGTERM prints {"received":N,"connections":N} and exits.
import { readFileSync } from 'node:fs'
import https from 'node:https'
import type { AddressInfo } from 'node:net'

let received = 0
let connections = 0
const server = https.createServer({ key: readFileSync(process.env.PUSH_KEY!), cert: readFileSync(process.env.PUSH_CERT!) }, (request, response) => {
  request.resume()
  request.on('end', () => {
    received++
    if (process.env.PUSH_MODE === 'accept') response.writeHead(201).end()
  })
})
server.on('secureConnection', () => void connections++)
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`))
process.once('SIGTERM', () => {
  process.stdout.write(`${JSON.stringify({ received, connections })}\n`)
  process.exit(0)
})
