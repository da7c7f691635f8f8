import { findSourceMap, type SourceMap } from 'node:module'
import { sourceMapBeside, sourcePosition } from './source-maps.ts'

// Stack traces that name the TypeScript sources under `node --enable-source-maps` (as `npm start`
// runs the server), for the compiled server that code-cache.ts runs. Node maps the frames of the
// files it loads itself, but not of a vm.Script's, and a prepareStackTrace of our own replaces
// Node's: frames in the bundle are mapped here, through its .map file (read on the first trace),
// the others through the map Node keeps of their file, if any.
export function mapBundleFrames(bundleFile: string): void {
  if (!sourceMapsEnabled()) return
  let map: SourceMap | null | undefined
  const mapOf = (file: string) => {
    if (file !== bundleFile) return findSourceMap(file) ?? null
    if (map === undefined) map = sourceMapBeside(bundleFile)
    return map
  }
  Error.prepareStackTrace = (error, frames) => {
    const lines = frames.map((frame) => `\n    at ${frameText(frame, mapOf)}`)
    return `${headline(error)}${lines.join('')}`
  }
}

// process.sourceMapsEnabled came in Node 20.7: before it, no mapping.
function sourceMapsEnabled(): boolean {
  return (process as { sourceMapsEnabled?: boolean }).sourceMapsEnabled === true
}

function headline(error: Error): string {
  try {
    return Error.prototype.toString.call(error)
  } catch {
    return '<error>'
  }
}

// V8's own text for the frame, with the compiled file's line and column replaced by the source's.
function frameText(frame: NodeJS.CallSite, mapOf: (file: string) => SourceMap | null): string {
  const text = frame.toString()
  const file = frame.getFileName()
  const line = frame.getLineNumber()
  const column = frame.getColumnNumber()
  if (!file || line === null || column === null) return text
  const map = mapOf(file)
  if (!map) return text
  const position = sourcePosition(map, file, line - 1, column - 1)
  return position ? text.replace(`${file}:${line}:${column}`, `${position.source}:${position.line}:${position.column}`) : text
}
