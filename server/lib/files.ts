import { readdirSync } from 'node:fs'
import { join } from 'node:path'

// Every file below a folder (none when it does not exist), depth first.
export function listFiles(dir: string): string[] {
  let entries
  try {
    entries = readdirSync(dir, { withFileTypes: true })
  } catch {
    return []
  }
  return entries.flatMap((entry) => (entry.isDirectory() ? listFiles(join(dir, entry.name)) : [join(dir, entry.name)]))
}
