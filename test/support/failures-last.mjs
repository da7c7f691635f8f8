// A node:test reporter that says nothing until the run ends, then names every failed test with
// its file and the first lines of its error. `npm test` runs it after the TAP reporter, so the
// last lines of a long run (all a CI log may keep) say what failed.
import { relative } from 'node:path'

const ERROR_LINES = 12

function describe(error) {
  const cause = error?.cause ?? error
  const text = cause instanceof Error ? (cause.stack ?? cause.message) : String(cause)
  return text.split('\n').filter((line) => !/\(?node:(internal|async_hooks)/.test(line)).slice(0, ERROR_LINES).map((line) => `    ${line}`).join('\n')
}

export default async function* failuresLast(source) {
  const failures = []
  let tests = 0
  for await (const event of source) {
    if (event.type === 'test:pass' || event.type === 'test:fail') {
      if (event.data.details?.type !== 'suite') tests += 1
      if (event.type !== 'test:fail' || event.data.details?.type === 'suite') continue
      // A failed hook or a file that failed to load has no test of its own: it is named too.
      const file = event.data.file ? relative(process.cwd(), event.data.file) : '(no file)'
      failures.push(`✗ ${file}: ${event.data.name}\n${describe(event.data.details?.error)}\n`)
    }
  }
  yield `\n# ${tests} tests, ${failures.length} failed\n`
  for (const failure of failures) yield failure
}
