// A node:test reporter that sums each file's top-level test durations and prints the files
// slowest first: where the suite's time goes (`--test-reporter=./test/support/file-timings.mjs`).
import { relative } from 'node:path'

export default async function* fileTimings(source) {
  const files = new Map()
  let failed = 0
  for await (const event of source) {
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.nesting === 0 && event.data.file) {
      const file = relative(process.cwd(), event.data.file)
      const entry = files.get(file) ?? { ms: 0, tests: 0, failed: 0 }
      entry.ms += event.data.details?.duration_ms ?? 0
      entry.tests += 1
      if (event.type === 'test:fail') {
        entry.failed += 1
        failed += 1
        yield `not ok: ${file}: ${event.data.name}\n`
      }
      files.set(file, entry)
    }
  }
  const rows = [...files].sort((a, b) => b[1].ms - a[1].ms)
  const total = rows.reduce((sum, [, entry]) => sum + entry.ms, 0)
  yield `\n${rows.length} files, ${rows.reduce((sum, [, e]) => sum + e.tests, 0)} top-level tests, ${failed} failed; ${(total / 1000).toFixed(1)} s of test time in all\n`
  for (const [file, entry] of rows) yield `${(entry.ms / 1000).toFixed(1).padStart(8)} s  ${String(entry.tests).padStart(4)} tests${entry.failed ? ` (${entry.failed} failed)` : ''}  ${file}\n`
}
