// The built-in /play sounds (facts from Campfire's app/models/sound.rb): each has an image with its
// size, or a line of text. The audio and image files are this project's own, named after the sound.

export interface SoundImage { file: string; width: number; height: number }
export interface Sound { name: string; audio: string; image?: SoundImage; text?: string }

type Look = readonly [width: number, height: number, imageName?: string] | string

const LOOKS: Readonly<Record<string, Look>> = {
  '56k': [79, 33], ballmer: 'developers!', bell: '🔔', bezos: '😆💭', bueller: 'anyone?', butts: '👐 🚬', clowntown: [210, 150],
  cottoneyejoe: '🎶🙉🎶 ', crickets: 'hears crickets chirping', curb: [150, 101], dadgummit: 'dad gummit!! 🎣',
  dangerzone: [157, 32], danielsan: '🎆 🏆 🎆', deeper: [188, 80, 'top'], donotwant: [150, 150], drama: [300, 16],
  flawless: '#flawless', glados: '🤖💢', gogogo: 'Go, go, go!', greatjob: [79, 16], greyjoy: '😖🎺', guarantee: 'guarantees it 👌',
  heygirl: '✨💁✨', honk: 'HONK', horn: '🐶 ✂️ 🐱', horror: '💀 💀 💀 💀 💀 💀 💀',
  inconceivable: "doesn't think it means what you think it means…", letitgo: '❄️👩❄️⛄️❄️', live: 'is DOING IT LIVE',
  loggins: [200, 151], makeitso: 'make it so 👉', noooo: '👸💀😒', nyan: [36, 15], ohmy: 'raises an eyebrow 😏',
  ohyeah: "isn't playing by the rules", pushit: [104, 15], rimshot: 'plays a rimshot', rollout: 'is rolling out 🚗',
  rumble: [220, 150], sax: '🌇🎷🎶', secret: 'found a secret area 🔑', sexyback: '🔞', story: 'and now you know…',
  tada: 'plays a fanfare 🎏', tmyk: '✨ ⭐️ The More You Know ✨ ⭐️', totes: '😁👍', trololo: 'трололо',
  trombone: 'plays a sad trombone', unix: 'knows this 💻', vuvuzela: '======<() ~ ♪ ~♫', what: [100, 131], whoomp: '👏‼️😎',
  wups: 'wups!', yay: [103, 50], yeah: [104, 15], yodel: '📣🗻🙉',
}

export const SOUND_NAMES: readonly string[] = Object.keys(LOOKS).sort()

export function findSound(name: string): Sound | null {
  const look = Object.hasOwn(LOOKS, name) ? LOOKS[name] : undefined
  if (look === undefined) return null
  const audio = `sounds/${name}.mp3`
  if (typeof look === 'string') return { name, audio, text: look }
  const [width, height, imageName = name] = look
  return { name, audio, image: { file: `sounds/${imageName}.webp`, width, height } }
}

// Message#sound: the message's whole plain text must be "/play <name>".
export function soundFor(plainText: string): Sound | null {
  const name = /^\/play ([A-Za-z0-9_]+)$/.exec(plainText)?.[1]
  return name === undefined ? null : findSound(name)
}
