// bench:routes --replay's bare server: answers each GET with the response recorded for its path,
// on keep-alive connections, and nothing else. No database, no rendering. Three floors, one under
// the other (--replay-with):
//   raw      net sockets writing the whole response as one buffer (status line, headers, body),
//            made once at start: the generator's own ceiling, and what the bytes cost to write;
//   http     Node's http server: its parser, its headers and its ServerResponse, then the same
//            status, headers and body;
//   fastify  a Fastify app with one route per path and nothing else (no plugin, no hook): what the
//            framework our request path stays on costs before any of our own code.
// Plain JavaScript under plain node, pinned to the server's core by the bench.
//
//   node replay-server.mjs TABLE.json [raw|http|fastify]
//   TABLE: [{ "path": "/…", "status": N, "headers": [[name, value], …], "body": "<base64>" }, …]
// Prints {"port": N} on stdout once it listens.
import { readFileSync } from 'node:fs'
import http from 'node:http'
import net from 'node:net'

const table = JSON.parse(readFileSync(process.argv[2], 'utf8'))
const mode = process.argv[3] ?? 'raw'
const listening = (server) => server.listen(0, '127.0.0.1', () => process.stdout.write(JSON.stringify({ port: server.address().port }) + '\n'))
process.on('SIGTERM', () => process.exit(0))

if (mode === 'raw') {
  const whole = ({ status, headers, body }) => {
    const head = headers.map(([name, value]) => `${name}: ${value}\r\n`).join('')
    return Buffer.concat([Buffer.from(`HTTP/1.1 ${status} Recorded\r\n${head}\r\n`, 'latin1'), Buffer.from(body, 'base64')])
  }
  const responses = new Map(table.map((entry) => [entry.path, whole(entry)]))
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
  listening(server)
} else {
  // Headers as Node's writeHead and Fastify's reply.headers take them: repeated names as arrays.
  const replies = new Map(table.map((entry) => {
    const headers = {}
    for (const [name, value] of entry.headers) headers[name] = name in headers ? [].concat(headers[name], value) : value
    return [entry.path, { status: entry.status, headers, body: Buffer.from(entry.body, 'base64') }]
  }))
  if (mode === 'http') {
    const server = http.createServer({ noDelay: true, keepAliveTimeout: 60_000 }, (request, response) => {
      const reply = replies.get(request.url)
      if (!reply) return void response.writeHead(404, { 'content-length': 0 }).end()
      response.writeHead(reply.status, reply.headers).end(reply.body)
    })
    listening(server)
  } else if (mode === 'fastify') {
    const { default: Fastify } = await import('fastify')
    const app = Fastify({ logger: false, keepAliveTimeout: 60_000 })
    for (const pathname of new Set([...replies.keys()].map((path) => path.split('?')[0]))) {
      app.get(pathname, (request, reply) => {
        const recorded = replies.get(request.url)
        if (!recorded) return reply.code(404).send()
        return reply.code(recorded.status).headers(recorded.headers).send(recorded.body)
      })
    }
    await app.listen({ port: 0, host: '127.0.0.1' })
    process.stdout.write(JSON.stringify({ port: app.server.address().port }) + '\n')
  } else {
    process.stderr.write(`replay-server: no mode '${mode}' (it takes raw, http, fastify)\n`)
    process.exit(2)
  }
}
