// The /play sounds, synthesized with the Web Audio API: each is a short score of notes played
// by one voice (an oscillator or filtered noise) with a quick attack and release. A few have
// their own score; the rest get a jingle derived from their name, so every sound is distinct.

export const SOUND_NAMES = [
  '56k', 'ballmer', 'bell', 'bezos', 'bueller', 'butts', 'clowntown', 'cottoneyejoe', 'crickets', 'curb', 'dadgummit',
  'dangerzone', 'danielsan', 'deeper', 'donotwant', 'drama', 'flawless', 'glados', 'gogogo', 'greatjob', 'greyjoy',
  'guarantee', 'heygirl', 'honk', 'horn', 'horror', 'inconceivable', 'letitgo', 'live', 'loggins', 'makeitso', 'noooo',
  'nyan', 'ohmy', 'ohyeah', 'pushit', 'rimshot', 'rollout', 'rumble', 'sax', 'secret', 'sexyback', 'story', 'tada',
  'tmyk', 'totes', 'trololo', 'trombone', 'unix', 'vuvuzela', 'what', 'whoomp', 'wups', 'yay', 'yeah', 'yodel',
]

type Voice = OscillatorType | 'noise'
// [semitones from A4 (or null for a rest), beats]
type Note = [number | null, number]
interface Score { voice: Voice; tempo: number; notes: Note[]; slide?: number; gain?: number }

const SCORES: Record<string, Score> = {
  tada: { voice: 'sawtooth', tempo: 300, notes: [[3, 0.5], [3, 0.5], [3, 0.5], [8, 3]] },
  trombone: { voice: 'sawtooth', tempo: 90, notes: [[-2, 1], [-3, 1], [-4, 1], [-5, 3]], slide: -1 },
  bell: { voice: 'sine', tempo: 120, notes: [[15, 2], [22, 2]], gain: 0.5 },
  rimshot: { voice: 'noise', tempo: 400, notes: [[0, 0.3], [null, 0.3], [0, 0.3], [null, 0.4], [12, 1]] },
  crickets: { voice: 'sine', tempo: 900, notes: Array.from({ length: 12 }, (_, i): Note => (i % 3 === 2 ? [null, 1] : [31, 0.5])) },
  honk: { voice: 'square', tempo: 160, notes: [[-9, 1.5]], gain: 0.3 },
  horn: { voice: 'sawtooth', tempo: 200, notes: [[-12, 1], [-7, 1], [-12, 2]] },
  vuvuzela: { voice: 'sawtooth', tempo: 60, notes: [[-10, 2.5]], gain: 0.25 },
  rumble: { voice: 'noise', tempo: 60, notes: [[-24, 2]] },
  '56k': { voice: 'square', tempo: 480, notes: [[14, 1], [19, 1], [9, 1], [26, 2], [null, 1], [21, 4]], gain: 0.2 },
  yay: { voice: 'triangle', tempo: 240, notes: [[0, 1], [4, 1], [7, 1], [12, 2]] },
  noooo: { voice: 'sawtooth', tempo: 60, notes: [[0, 2]], slide: -12 },
}

const context = (): AudioContext => (sharedContext ??= new AudioContext())
let sharedContext: AudioContext | null = null

export function scoreFor(name: string): Score {
  const known = SCORES[name]
  if (known) return known
  let seed = 0
  for (const c of name) seed = (seed * 33 + c.charCodeAt(0)) >>> 0
  const scale = [0, 2, 4, 7, 9, 12, 14, 16]
  const voices: OscillatorType[] = ['triangle', 'square', 'sine', 'sawtooth']
  const notes: Note[] = []
  for (let i = 0; i < 4 + (seed % 3); i++) {
    seed = (seed * 1103515245 + 12345) >>> 0
    notes.push([scale[seed % scale.length]! - 5, i === 0 ? 0.5 : 1 + ((seed >> 8) % 2)])
  }
  return { voice: voices[seed % voices.length]!, tempo: 220 + (seed % 120), notes }
}

export function playSound(name: string): void {
  const audio = context()
  if (audio.state === 'suspended') void audio.resume()
  const score = scoreFor(name)
  const beat = 60 / score.tempo
  let at = audio.currentTime + 0.02
  for (const [pitch, beats] of score.notes) {
    const length = beats * beat
    if (pitch !== null) playNote(audio, score, pitch, at, length)
    at += length
  }
}

function playNote(audio: AudioContext, score: Score, pitch: number, at: number, length: number): void {
  const frequency = 440 * 2 ** (pitch / 12)
  const envelope = audio.createGain()
  const peak = score.gain ?? 0.35
  envelope.gain.setValueAtTime(0, at)
  envelope.gain.linearRampToValueAtTime(peak, at + 0.01)
  envelope.gain.setValueAtTime(peak, at + Math.max(0.01, length * 0.7))
  envelope.gain.exponentialRampToValueAtTime(0.0001, at + length)
  envelope.connect(audio.destination)
  const source = score.voice === 'noise' ? noise(audio, frequency, length) : tone(audio, score.voice, frequency)
  if ('frequency' in source && score.slide) {
    source.frequency.setValueAtTime(frequency, at)
    source.frequency.exponentialRampToValueAtTime(frequency * 2 ** (score.slide / 12), at + length)
  }
  const node = 'output' in source ? source.output : source
  node.connect(envelope)
  source.start(at)
  source.stop(at + length + 0.05)
}

function tone(audio: AudioContext, type: OscillatorType, frequency: number): OscillatorNode {
  const oscillator = audio.createOscillator()
  oscillator.type = type
  oscillator.frequency.value = frequency
  return oscillator
}

function noise(audio: AudioContext, frequency: number, length: number): AudioBufferSourceNode & { output: AudioNode } {
  const buffer = audio.createBuffer(1, Math.ceil(audio.sampleRate * (length + 0.05)), audio.sampleRate)
  const data = buffer.getChannelData(0)
  for (let i = 0; i < data.length; i++) data[i] = Math.random() * 2 - 1
  const source = audio.createBufferSource() as AudioBufferSourceNode & { output: AudioNode }
  source.buffer = buffer
  const filter = audio.createBiquadFilter()
  filter.type = 'bandpass'
  filter.frequency.value = frequency * 4
  source.connect(filter)
  source.output = filter
  return source
}
