import { readFileSync } from 'node:fs'
import { SourceMap } from 'node:module'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

// A compiled file's own source map, the .map esbuild writes beside it (a path or a file:// URL),
// or null when there is none or it cannot be read.
export function sourceMapBeside(file: string): SourceMap | null {
  const path = pathOf(file)
  if (!path.startsWith('/')) return null
  try {
    return new SourceMap(JSON.parse(readFileSync(`${path}.map`, 'utf8')))
  } catch {
    return null
  }
}

// Where a position in a compiled file (0-based line and column, as V8's profiles count) came
// from: the source's path (URLs, as Node's own maps give them, are kept) and its 1-based line
// and column; null where the map says nothing.
export function sourcePosition(map: SourceMap, file: string, line: number, column: number): { source: string; line: number; column: number } | null {
  const entry = map.findEntry(line, column) as { originalSource?: string; originalLine?: number; originalColumn?: number }
  if (entry.originalSource === undefined || entry.originalLine === undefined || entry.originalColumn === undefined) return null
  // esbuild's maps name their sources relative to the compiled file.
  const source = /^[a-z]+:/.test(entry.originalSource) ? entry.originalSource : resolve(dirname(pathOf(file)), entry.originalSource)
  return { source, line: entry.originalLine + 1, column: entry.originalColumn + 1 }
}

function pathOf(file: string): string {
  return file.startsWith('file:') ? fileURLToPath(file) : file
}
