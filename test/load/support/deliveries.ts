// Whether a post reached every person viewing its room (performance.md §1). The people viewing
// the room when the post is sent are expected to receive it. Someone who leaves the room within
// DELIVERY_TARGET_MS of the post without it is excused (the broadcast may have left before they
// came back); someone who leaves later without it was not served in time; someone still there
// without it when the step is tallied never got it, which is a failure.
export const DELIVERY_TARGET_MS = 500

const NOT_VIEWING = 0
const EXPECTED = 1
const RECEIVED = 2
const EXCUSED = 3
const LEFT_WITHOUT = 4

export interface Tally {
  // People who were to receive it (the excused are not counted), those who received it late or
  // never (missed), those excused, and those still viewing who never received it.
  expected: number
  missed: number
  excused: number
  undelivered: number
}

export class Delivery {
  private readonly state: Uint8Array

  constructor(
    readonly seq: number,
    readonly room: number,
    readonly sentAt: number,
    viewers: Iterable<number>,
    people: number,
  ) {
    this.state = new Uint8Array(people)
    for (const person of viewers) this.state[person] = EXPECTED
  }

  // The person left the room (unsubscribed its messages stream) at `now`.
  left(person: number, now: number): void {
    if (this.state[person] === EXPECTED) this.state[person] = now - this.sentAt <= DELIVERY_TARGET_MS ? EXCUSED : LEFT_WITHOUT
  }

  // The person's socket read the post at `at`: its latency, or null when it was not expected or already counted.
  received(person: number, at: number): number | null {
    const state = this.state[person]
    if (state !== EXPECTED && state !== EXCUSED && state !== LEFT_WITHOUT) return null
    this.state[person] = RECEIVED
    return at - this.sentAt
  }

  tally(): Tally {
    const tally = { expected: 0, missed: 0, excused: 0, undelivered: 0 }
    for (const state of this.state) {
      if (state === NOT_VIEWING) continue
      if (state === EXCUSED) tally.excused++
      else tally.expected++
      if (state === EXPECTED || state === LEFT_WITHOUT) tally.missed++
      if (state === EXPECTED) tally.undelivered++
    }
    return tally
  }
}
