import { JSONParser } from '@streamparser/json'
import type { ExportSource } from './export-source.ts'
import { MAX_DAY_BYTES } from './export-source.ts'
import type { ImportReport } from './report.ts'

export type SlackMessage = Record<string, unknown>

// A day file's messages, streamed: each chunk of the file is parsed as it arrives and the
// messages it completes are handed on together, so what is held is one chunk's messages, not the
// day (a 200 MB day file is read in a few tens of MB). Slack writes a day's messages in time
// order. A file that is not a JSON list, or breaks off, is named in the report; the messages
// before the break are kept. An export that turns out unsafe while read (a zip entry larger than
// it declares, a file swapped for a link) ends the import, as its error says.
export async function* dayMessages(source: ExportSource, path: string, report: ImportReport): AsyncGenerator<SlackMessage[]> {
  if (source.size(path) > MAX_DAY_BYTES) return report.refuse(`${path}: larger than ${MAX_DAY_BYTES / 1024 ** 3} GB`)
  const parser = new JSONParser({ paths: ['$.*'], keepStack: false })
  let found: SlackMessage[] = []
  let problem: string | null = null
  parser.onValue = ({ value, key }) => {
    if (typeof key !== 'number') problem ??= 'not a list of messages'
    else if (typeof value === 'object' && value !== null && !Array.isArray(value)) found.push(value as SlackMessage)
  }
  parser.onError = (error) => void (problem ??= `not JSON (${error.message.slice(0, 120)})`)
  const stream = await source.open(path)
  try {
    for await (const chunk of stream) {
      parser.write(chunk as Buffer)
      if (problem) break
      if (found.length > 0) {
        yield found
        found = []
      }
    }
    if (!problem && !parser.isEnded) parser.end()
  } finally {
    stream.destroy()
  }
  if (problem) report.refuse(`${path}: ${problem}`)
  else if (found.length > 0) yield found
}
