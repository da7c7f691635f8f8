// Reads a V8 .cpuprofile (node --cpu-prof) and names where the time went: self time per function
// (as the bottom-up view of DevTools shows it), and inclusive time for the same functions.
import { readdirSync, readFileSync } from 'node:fs'
import type { SourceMap } from 'node:module'
import { join, relative } from 'node:path'
import { sourceMapBeside, sourcePosition } from '../../../server/lib/source-maps.ts'

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

// A stretch of the profiled process's run, in the profile's own clock: µs of CLOCK_MONOTONIC,
// which is also process.hrtime's on Linux, so another process on the machine can name it.
export interface ProfileWindow {
  fromUs: number
  toUs: number
}

// With `windows`, only the samples taken inside one of them count.
export function summarizeProfileDir(dir: string, root: string, top = 20, windows?: ProfileWindow[]): ProfileSummary[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.cpuprofile'))
    .map((name) => summarizeProfile(join(dir, name), root, top, windows))
    .sort((a, b) => b.busy_ms - a.busy_ms)
}

export function summarizeProfile(file: string, root: string, top = 20, windows?: ProfileWindow[]): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)

  const selfUs = new Map<number, number>()
  let totalUs = 0
  let at = profile.startTime
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0
    if (windows && !windows.some((window) => at >= window.fromUs && at <= window.toUs)) return
    const delta = profile.timeDeltas[i + 1] ?? 0
    selfUs.set(id, (selfUs.get(id) ?? 0) + delta)
    totalUs += delta
  })

  const name = frameNamer(root)

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

// A frame's name: its function and where it is, in the source a compiled file's source map
// points to when it has one beside it (dist/server.cjs, whose whitespace is minified, and the
// chunks): `handler server/routes/rooms.ts:40`, not a line of the bundle.
function frameNamer(root: string): (node: ProfileNode) => string {
  const maps = new Map<string, SourceMap | null>()
  const mapOf = (url: string) => {
    if (!maps.has(url)) maps.set(url, sourceMapBeside(url))
    return maps.get(url)!
  }
  return (node) => {
    const { functionName, url, lineNumber, columnNumber } = node.callFrame
    const map = url && lineNumber >= 0 ? mapOf(url) : null
    const position = map ? sourcePosition(map, url, lineNumber, columnNumber) : null
    const where = position ? `${shorten(position.source, root)}:${position.line}` : url ? `${shorten(url, root)}:${lineNumber + 1}` : ''
    return `${functionName || '(anonymous)'}${where ? ' ' + where : ''}`
  }
}

function shorten(url: string, root: string): string {
  const path = url.startsWith('file://') ? decodeURIComponent(url.slice(7)) : url
  if (path.startsWith(root)) return relative(root, path)
  const modules = path.lastIndexOf('node_modules/')
  return modules >= 0 ? path.slice(modules) : path
}

export interface CallPath {
  // The frame's callers, nearest first: "caller ← its caller ← …".
  path: string
  self_ms: number
  // Of the frame's own self time.
  percent: number
}

// Who calls each of `frames` (names as in top_self): its self time split by the call paths up to
// `depth` callers above it, the `top` biggest first. Samples outside `windows` are left out, as
// in summarizeProfile.
export function frameCallers(file: string, root: string, frames: string[], depth = 3, top = 3, windows?: ProfileWindow[]): Record<string, CallPath[]> {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const name = frameNamer(root)
  const wanted = new Set(frames)
  const paths = new Map<string, Map<string, number>>()
  let at = profile.startTime
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0
    if (windows && !windows.some((window) => at >= window.fromUs && at <= window.toUs)) return
    const node = byId.get(id)!
    const frame = name(node)
    if (!wanted.has(frame)) return
    const chain: string[] = []
    for (let up = parent.get(id); up !== undefined && chain.length < depth; up = parent.get(up)) {
      const caller = byId.get(up)!
      if (caller.callFrame.functionName === '(root)') break
      chain.push(name(caller))
    }
    const key = chain.length > 0 ? chain.join(' ← ') : '(no caller)'
    let byPath = paths.get(frame)
    if (!byPath) paths.set(frame, (byPath = new Map()))
    byPath.set(key, (byPath.get(key) ?? 0) + (profile.timeDeltas[i + 1] ?? 0))
  })
  const out: Record<string, CallPath[]> = {}
  for (const frame of frames) {
    const byPath = paths.get(frame) ?? new Map<string, number>()
    const total = [...byPath.values()].reduce((a, b) => a + b, 0)
    out[frame] = [...byPath].sort((a, b) => b[1] - a[1]).slice(0, top).map(([path, us]) => ({ path, self_ms: Math.round(us / 1000), percent: Math.round((us / Math.max(1, total)) * 1000) / 10 }))
  }
  return out
}

// The top self-time frames of each profile in `dir` (the busiest first), with their callers, as
// lines for the console.
export function describeProfiles(dir: string, root: string, frames = 15, withCallers = 8, windows?: ProfileWindow[]): { summaries: (ProfileSummary & { callers: Record<string, CallPath[]> })[]; lines: string[] } {
  const summaries = summarizeProfileDir(dir, root, frames, windows).map((summary) => ({
    ...summary,
    callers: frameCallers(summary.file, root, summary.top_self.slice(0, withCallers).map((f) => f.frame), 3, 3, windows),
  }))
  const lines: string[] = []
  for (const [i, profile] of summaries.entries()) {
    if (i > 0 && profile.busy_ms < profile.sampled_ms * 0.05) continue
    lines.push(`  CPU profile ${profile.file} (${Math.round(profile.sampled_ms / 100) / 10} s sampled, ${profile.idle_percent}% idle or waiting); top self time, % of busy (total = inclusive):`)
    for (const frame of profile.top_self) {
      lines.push(`    ${String(frame.self_percent).padStart(5)}%  (total ${String(frame.total_percent).padStart(5)}%)  ${frame.frame}`)
      for (const call of profile.callers[frame.frame] ?? []) lines.push(`             ${String(call.percent).padStart(5)}% ← ${call.path}`)
    }
  }
  return { summaries, lines }
}

// With --gen-cpu-prof, where the generator's own profile goes (tmp/bench/<profile>-generator-prof-<stamp>)
// and what prints its top frames once the profiled generator has exited; with it off, nothing.
export function generatorProfile(script: string, profile: string, out: string, enabled: boolean, root: string, stamp: string): { dir: string | null; print: () => void } {
  const dir = enabled ? join(out, `${profile}-generator-prof-${stamp}`) : null
  return {
    dir,
    print: () => {
      if (dir === null) return
      console.log(`${script}: the generator's own profile, ${dir}:`)
      for (const line of describeProfiles(dir, root, 25, 10).lines) console.log(line)
    },
  }
}

// The stretches in which the profiled thread never went back to its event loop for at least
// `minMs`: consecutive samples none of which is idle or waiting. These are the stalls a loop
// probe sees, named by their own samples (what the server was doing while everyone waited).
export function busyStretches(file: string, minMs: number): ProfileWindow[] {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile
  const waiting = new Set(profile.nodes.filter((node) => WAITING.test(node.callFrame.functionName)).map((node) => node.id))
  const stretches: ProfileWindow[] = []
  let at = profile.startTime
  let from: number | null = null
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0
    if (!waiting.has(id)) {
      if (from === null) from = at
      return
    }
    if (from !== null && at - from >= minMs * 1000) stretches.push({ fromUs: from, toUs: at })
    from = null
  })
  return stretches
}

// What the busiest profile in `dir` (the server's main thread) did inside its busy stretches of
// at least `minMs`: how many there were, their length, and the top frames within them.
export function describeStalls(dir: string, root: string, minMs = 50): { stretches: number; longest_ms: number; total_ms: number; lines: string[] } {
  const [busiest] = summarizeProfileDir(dir, root, 1)
  if (!busiest) return { stretches: 0, longest_ms: 0, total_ms: 0, lines: [] }
  const windows = busyStretches(busiest.file, minMs)
  const lengths = windows.map((w) => (w.toUs - w.fromUs) / 1000)
  const total = Math.round(lengths.reduce((a, b) => a + b, 0))
  const longest = Math.round(Math.max(0, ...lengths))
  const lines = [`  ${windows.length} stretches of ${minMs} ms or more without returning to the event loop (${total} ms in all, longest ${longest} ms); within them:`]
  if (windows.length > 0) lines.push(...describeProfiles(dir, root, 20, 10, windows).lines.slice(0, 60))
  return { stretches: windows.length, longest_ms: longest, total_ms: total, lines }
}
