// Reads a V8 .cpuprofile (node --cpu-prof) and names where the time went: self time per function
// (as the bottom-up view of DevTools shows it), and inclusive time for the same functions.
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number }
  children?: number[]
}

interface Profile {
  nodes: ProfileNode[]
  startTime: number
  endTime: number
  samples: number[]
  timeDeltas: number[]
}

export interface Frame {
  frame: string
  self_ms: number
  self_percent: number
  total_ms: number
  total_percent: number
}

export interface ProfileSummary {
  file: string
  sampled_ms: number
  idle_percent: number
  busy_ms: number
  top_self: Frame[]
}

// Where a thread sits when it has nothing to do: the event loop's idle, and piscina's workers
// blocked in Atomics.wait (a wall-clock sample, not CPU).
const WAITING = /^(\(idle\)|atomicsWaitLoop)( |$)/

export function summarizeProfileDir(dir: string, root: string, top = 20): ProfileSummary[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.cpuprofile'))
    .map((name) => summarizeProfile(join(dir, name), root, top))
    .sort((a, b) => b.busy_ms - a.busy_ms)
}

export function summarizeProfile(file: string, root: string, top = 20): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)

  const selfUs = new Map<number, number>()
  let totalUs = 0
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i + 1] ?? 0
    selfUs.set(id, (selfUs.get(id) ?? 0) + delta)
    totalUs += delta
  })

  const name = (node: ProfileNode) => {
    const { functionName, url, lineNumber } = node.callFrame
    const where = url ? `${shorten(url, root)}:${lineNumber + 1}` : ''
    return `${functionName || '(anonymous)'}${where ? ' ' + where : ''}`
  }

  const self = new Map<string, number>()
  const total = new Map<string, number>()
  for (const [id, us] of selfUs) {
    const node = byId.get(id)!
    const key = name(node)
    self.set(key, (self.get(key) ?? 0) + us)
    // Inclusive: every distinct frame on the stack gets the sample once.
    const seen = new Set<string>()
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = name(byId.get(at)!)
      if (seen.has(frame)) continue
      seen.add(frame)
      total.set(frame, (total.get(frame) ?? 0) + us)
    }
  }

  let idle = 0
  for (const [frame, us] of self) if (WAITING.test(frame)) idle += us
  const busy = totalUs - idle
  const pct = (us: number) => Math.round((us / Math.max(1, busy)) * 1000) / 10
  const top_self = [...self]
    .filter(([frame]) => !WAITING.test(frame))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([frame, us]) => ({ frame, self_ms: Math.round(us / 1000), self_percent: pct(us), total_ms: Math.round((total.get(frame) ?? 0) / 1000), total_percent: pct(total.get(frame) ?? 0) }))
  return { file, sampled_ms: Math.round(totalUs / 1000), busy_ms: Math.round(busy / 1000), idle_percent: Math.round((idle / Math.max(1, totalUs)) * 1000) / 10, top_self }
}

function shorten(url: string, root: string): string {
  const path = url.startsWith('file://') ? decodeURIComponent(url.slice(7)) : url
  if (path.startsWith(root)) return relative(root, path)
  const modules = path.lastIndexOf('node_modules/')
  return modules >= 0 ? path.slice(modules) : path
}
