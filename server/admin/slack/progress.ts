import cliProgress from 'cli-progress'
import type { Progress } from './context.ts'

// On a terminal, one bar over the export's message files, with the conversation and the count
// of messages read; elsewhere (a pipe, a log), one line per conversation.
export function progressOn(stream: NodeJS.WriteStream): Progress {
  let messages = 0
  let conversations = 0
  if (!stream.isTTY) {
    return {
      start: (count) => void (conversations = count),
      conversation: (index, name) => void stream.write(`conversation ${index}/${conversations}: ${name} (${messages} messages read so far)\n`),
      advance: (_bytes, count) => void (messages += count),
      stop: () => {},
    }
  }
  const bar = new cliProgress.SingleBar(
    { stream, format: '{bar} {percentage}% | conversation {index}/{conversations} {name} | {messages} messages', hideCursor: true, clearOnComplete: false },
    cliProgress.Presets.shades_classic,
  )
  let started = false
  return {
    start(count, bytes) {
      conversations = count
      bar.start(Math.max(bytes, 1), 0, { index: 0, conversations: count, name: '', messages: 0 })
      started = true
    },
    conversation: (index, name) => bar.update({ index, name }),
    advance(bytes, count) {
      messages += count
      bar.increment(bytes, { messages })
    },
    stop: () => void (started && bar.stop()),
  }
}
