// bench:routes --replay's bare server: answers each GET with the bytes recorded for its path (the
// whole response: status line, headers, body), on keep-alive connections, and nothing else. No
// database, no rendering: its ceiling is the generator's, which is what --replay measures.
// Plain JavaScript under plain node, pinned to the server's core by the bench.
//
//   node replay-server.mjs TABLE.json     TABLE: [{ "path": "/…", "response": "<base64>" }, …]
// Prints {"port": N} on stdout once it listens.
import { readFileSync } from 'node:fs'
import net from 'node:net'

const table = JSON.parse(readFileSync(process.argv[2], 'utf8'))
const responses = new Map(table.map((entry) => [entry.path, Buffer.from(entry.response, 'base64')]))
const NOT_FOUND = Buffer.from('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n')

const server = net.createServer({ noDelay: true }, (socket) => {
  let pending = ''
  socket.on('data', (chunk) => {
    pending += chunk.toString('latin1')
    for (let end = pending.indexOf('\r\n\r\n'); end >= 0; end = pending.indexOf('\r\n\r\n')) {
      const head = pending.slice(0, end)
      pending = pending.slice(end + 4)
      const from = head.indexOf(' ') + 1
      socket.write(responses.get(head.slice(from, head.indexOf(' ', from))) ?? NOT_FOUND)
    }
  })
  socket.on('error', () => {})
})
server.listen(0, '127.0.0.1', () => process.stdout.write(JSON.stringify({ port: server.address().port }) + '\n'))
process.on('SIGTERM', () => process.exit(0))
