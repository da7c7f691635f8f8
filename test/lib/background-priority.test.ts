import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { describe, test } from 'node:test'
import sharp from 'sharp'
import { lowerProcess } from '../../server/lib/background-priority.ts'
import { resizeToLimit } from '../../server/lib/images.ts'

// /proc/<pid>/task/<tid>/stat: the nice value is the 19th field, counted after the name.
function niceOf(statPath: string): number {
  const stat = readFileSync(statPath, 'utf8')
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])
}

function imageThreads(): { tid: string; nice: number }[] {
  return readdirSync('/proc/self/task')
    .filter((tid) => readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').startsWith('libvips'))
    .map((tid) => ({ tid, nice: niceOf(`/proc/self/task/${tid}/stat`) }))
}

describe('background priority for image and video work', { skip: !existsSync('/proc/self/task') && 'needs Linux /proc' }, () => {
  test('libvips threads run at the lowest priority once an image has been made, and the event loop thread does not', async () => {
    const photo = await sharp({ create: { width: 1600, height: 1200, channels: 3, background: '#3a6' } }).jpeg().toBuffer()
    await resizeToLimit(photo, 400, 300, 'jpeg')
    const threads = imageThreads()
    assert.ok(threads.length > 0, 'libvips has started its threads')
    assert.deepEqual(threads.filter((t) => t.nice !== 19), [], 'every libvips thread is at nice 19')
    assert.equal(niceOf(`/proc/self/task/${process.pid}/stat`), 0, 'the main thread keeps its priority')
  })

  test('a helper program is lowered to the lowest priority', async (t) => {
    const child = spawn('sleep', ['5'])
    t.after(() => child.kill('SIGKILL'))
    await new Promise((resolve) => child.once('spawn', resolve))
    lowerProcess(child.pid)
    assert.equal(niceOf(`/proc/${child.pid}/stat`), 19)
  })
})
