import assert from 'node:assert/strict'
import test from 'node:test'
import { EventEmitter } from 'node:events'
import * as ws from 'ws'
import { wireTextFrame } from '../../server/cable/wire-frame.ts'

// ws exports its frame parser, though @types/ws does not declare it.
interface FrameReceiver extends EventEmitter {
  write(chunk: Buffer): void
}
const { Receiver } = ws as unknown as { Receiver: new (options: { isServer: boolean; maxPayload: number }) => FrameReceiver }

// ws's own parser reads the frame as a client would.
function decode(frame: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const receiver = new Receiver({ isServer: false, maxPayload: 0 })
    receiver.on('message', (data: Buffer, isBinary: boolean) => (isBinary ? reject(new Error('binary')) : resolve(data.toString())))
    receiver.on('error', reject)
    receiver.write(frame)
  })
}

test('a wire frame decodes to its text at every length encoding (7-bit, 16-bit and 64-bit)', async () => {
  for (const length of [0, 1, 125, 126, 127, 65_535, 65_536, 200_000]) {
    const text = 'x'.repeat(length)
    assert.equal(await decode(wireTextFrame(text)), text, `length ${length}`)
  }
})

test('a wire frame carries multi-byte UTF-8 by byte length, not string length', async () => {
  const text = '{"message":"café ☕ 🔥"}'.repeat(10)
  assert.equal(await decode(wireTextFrame(text)), text)
})
