import { spawn, type ChildProcess } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { ROOT } from './server-process.ts'

// A command run in a process group of its own (as a terminal or an orchestrator runs it), so a
// signal can go to the group and the test can tell when every process in it is gone.
export interface Group {
  child: ChildProcess
  baseUrl: string
  output: () => string
  // Whether any process of the group is still running.
  alive: () => boolean
  // Resolves with the milliseconds until no process of the group is left, or rejects past limitMs.
  gone: (limitMs: number) => Promise<number>
}

export async function startGroup(command: string[], env: Record<string, string>, startMs = 240_000): Promise<Group> {
  const child = spawn(command[0]!, command.slice(1), { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  let log = ''
  child.stdout!.on('data', (chunk: Buffer) => (log += chunk.toString()))
  child.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()))
  const alive = () => groupMembers(child.pid!).length > 0
  const group: Group = {
    child,
    baseUrl: '',
    output: () => log,
    alive,
    async gone(limitMs) {
      const started = performance.now()
      while (alive()) {
        if (performance.now() - started > limitMs) throw new Error(`still running ${limitMs} ms later:\n${log.slice(-3000)}`)
        await sleep(20)
      }
      return performance.now() - started
    },
  }
  const deadline = performance.now() + startMs
  for (;;) {
    const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(log)
    if (match) return { ...group, baseUrl: match[1]! }
    if (child.exitCode !== null || performance.now() > deadline) {
      kill(group)
      throw new Error(`${command.join(' ')} did not start:\n${log}`)
    }
    await sleep(50)
  }
}

// The running processes of a group (Linux's /proc). A zombie has exited: it only waits for its
// parent (init, once npm and its shell are gone) to collect its status, which may take a while.
export function groupMembers(pgid: number): number[] {
  const members: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    let stat: string
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
    } catch {
      continue
    }
    // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses, so read after the last ")".
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    if (Number(pgrp) === pgid && state !== 'Z') members.push(Number(entry))
  }
  return members
}

// Whatever is left of the group is killed (a test's after hook).
export function kill(group: Pick<Group, 'child' | 'alive'>): void {
  if (!group.alive()) return
  try {
    process.kill(-group.child.pid!, 'SIGKILL')
  } catch {}
}

// The process ids the server logged ("pid" on each JSON line), the workers' and the primary's.
export function loggedPids(output: string): Set<number> {
  return new Set([...output.matchAll(/"pid":(\d+)/g)].map((match) => Number(match[1])))
}
