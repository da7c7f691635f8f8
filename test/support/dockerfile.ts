import { readFileSync } from 'node:fs'

// What the Dockerfile's final stage says about how the image runs: enough to start the server
// exactly as its default command would without a container engine, and to check the image's
// promises (the instructions are read as Docker reads them; `${VAR}` is left as written).
export interface ImageRecipe {
  // The final stage's base, and every stage's.
  base: string
  stages: string[]
  // Each instruction of the final stage, continuation lines joined.
  instructions: { keyword: string; args: string }[]
  env: Record<string, string>
  user: string | null
  workdir: string | null
  entrypoint: string[]
  cmd: string[]
  labels: Record<string, string>
  args: string[]
  // Every package the final stage installs with apt-get.
  packages: string[]
  // HEALTHCHECK [--option=value …] CMD ["…"]: its options and command (exec form), or null.
  healthcheck: { options: Record<string, string>; cmd: string[] } | null
}

export function readDockerfile(path: string): ImageRecipe {
  const lines = readFileSync(path, 'utf8').replace(/\\\r?\n/g, ' ').split(/\r?\n/)
  const all = lines.map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('#'))
  const instructions = all.map((line) => {
    const [keyword = '', ...rest] = line.split(/\s+/)
    return { keyword: keyword.toUpperCase(), args: rest.join(' ') }
  })
  const froms = instructions.map((instruction, i) => [instruction, i] as const).filter(([instruction]) => instruction.keyword === 'FROM')
  if (froms.length === 0) throw new Error(`${path} has no FROM`)
  const [lastFrom, start] = froms.at(-1)!
  const final = instructions.slice(start + 1)
  const recipe: ImageRecipe = {
    base: lastFrom.args.split(/\s+/)[0]!,
    stages: froms.map(([instruction]) => instruction.args),
    instructions: final,
    env: {},
    user: null,
    workdir: null,
    entrypoint: [],
    cmd: [],
    labels: {},
    args: [],
    packages: [],
    healthcheck: null,
  }
  for (const { keyword, args } of final) {
    if (keyword === 'ENV') Object.assign(recipe.env, pairs(args))
    else if (keyword === 'LABEL') Object.assign(recipe.labels, pairs(args))
    else if (keyword === 'USER') recipe.user = args
    else if (keyword === 'WORKDIR') recipe.workdir = args
    else if (keyword === 'ARG') recipe.args.push(args.split('=')[0]!)
    else if (keyword === 'ENTRYPOINT') recipe.entrypoint = execForm(keyword, args)
    else if (keyword === 'CMD') recipe.cmd = execForm(keyword, args)
    else if (keyword === 'HEALTHCHECK') recipe.healthcheck = healthcheck(args)
    else if (keyword === 'RUN') for (const match of args.matchAll(/apt-get install ([^&;|]+)/g)) recipe.packages.push(...match[1]!.split(/\s+/).filter((word) => word && !word.startsWith('-')))
  }
  return recipe
}

function healthcheck(args: string): ImageRecipe['healthcheck'] {
  const match = /^((?:--[\w-]+=\S+\s+)*)CMD\s+(.+)$/.exec(args)
  if (!match) throw new Error(`HEALTHCHECK is not [--options] CMD [exec form]: ${args}`)
  const options = Object.fromEntries(match[1]!.trim().split(/\s+/).filter(Boolean).map((option) => option.slice(2).split('=') as [string, string]))
  return { options, cmd: execForm('HEALTHCHECK', match[2]!) }
}

// CMD ["node", "x.js"]: the exec form only (the shell form would put a shell in front).
function execForm(keyword: string, args: string): string[] {
  const parsed: unknown = JSON.parse(args)
  if (!Array.isArray(parsed) || !parsed.every((part) => typeof part === 'string')) throw new Error(`${keyword} is not in exec form: ${args}`)
  return parsed
}

// KEY=value KEY2="value two": the name=value form.
function pairs(args: string): Record<string, string> {
  const found: Record<string, string> = {}
  for (const match of args.matchAll(/([A-Za-z_][\w.-]*)=("(?:[^"\\]|\\.)*"|\S*)/g)) {
    const raw = match[2]!
    found[match[1]!] = raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw
  }
  return found
}
