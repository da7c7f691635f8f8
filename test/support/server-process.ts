import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { compiledServer } from './compiled-server.ts'

export const ROOT = fileURLToPath(new URL('../..', import.meta.url))

export interface ServerProcess {
  child: ChildProcess
  baseUrl: string
  output: () => string
}

// Starts the server as a real child process on a free port and waits for it to listen: by
// default as `npm start` runs it, compiled from today's sources (compiledServer), with its flags.
export async function startServer(env: Record<string, string>, cwd = ROOT, command?: string[]): Promise<ServerProcess> {
  command ??= ['node', '--enable-source-maps', '--max-semi-space-size=8', await compiledServer()]
  const child = spawn(command[0]!, command.slice(1), {
    cwd,
    env: { ...process.env, HTTP_PORT: '0', HTTP_BIND: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let log = ''
  return new Promise<ServerProcess>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${log}`)), 60_000)
    const onData = (chunk: Buffer) => {
      log += chunk.toString()
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(log)
      if (match) {
        clearTimeout(timer)
        resolve({ child, baseUrl: match[1]!, output: () => log })
      }
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    child.on('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`server exited with ${code}:\n${log}`))
    })
  })
}

export function stopServer(server: ServerProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  return new Promise((resolve) => {
    if (server.child.exitCode !== null || server.child.signalCode !== null) return resolve()
    server.child.removeAllListeners('exit')
    server.child.once('exit', () => resolve())
    server.child.kill(signal)
  })
}

// A cookie jar good enough for following our own sign-in flow over real HTTP.
export class CookieJar {
  private readonly cookies = new Map<string, string>()

  store(response: Response): void {
    for (const header of response.headers.getSetCookie()) {
      const [pair] = header.split(';')
      const index = pair!.indexOf('=')
      const name = pair!.slice(0, index).trim()
      const value = pair!.slice(index + 1).trim()
      if (/expires=Thu, 01 Jan 1970/i.test(header) || /max-age=0/i.test(header)) this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ')
  }

  has(name: string): boolean {
    return this.cookies.has(name)
  }
}

export async function request(baseUrl: string, jar: CookieJar, path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers)
  if (jar.header()) headers.set('cookie', jar.header())
  const response = await fetch(baseUrl + path, { ...init, headers, redirect: 'manual' })
  jar.store(response)
  return response
}

export function formPost(fields: Record<string, string>): RequestInit {
  return { method: 'POST', body: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' } }
}
