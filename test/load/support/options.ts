// The load scripts' command lines, read with Node's own util.parseArgs. A script describes its
// options in a table (name → flag or value, with its default and a description); readOptions
// turns argv into typed values keyed by the camelCased names (--step-secs → stepSecs), answers
// --help / -h with the usage built from the same table (then exits 0), and stops at the first
// unknown option or bad value with a message naming it (then exits 2). Both happen before a
// script writes anything, starts a server or re-runs itself pinned under taskset.
//
//   const OPTIONS = {
//     steps: numbers('N,N,…', 'people per step', [250, 500]),
//     fixture: path('DIR', 'the fixture folder', 'tmp/bench/users'),
//     'keep-going': flag('run every step'),
//   }
//   const o = readOptions({ name: 'bench:users', summary: '…', options: OPTIONS })
//   o.steps // number[]; o.fixture: string; o.keepGoing: boolean
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const ROOT = fileURLToPath(new URL('../../..', import.meta.url))

// A bad value; the reader puts the option's name in front of the message.
export class OptionError extends Error {}

export interface FlagOption {
  type: 'boolean'
  description: string
}

export interface ValueOption<T> {
  type: 'string'
  // What the value looks like in the usage: N, DIR, URL…
  value: string
  description: string
  default: T
  // The default as the usage shows it (none when undefined).
  shown?: string
  parse: (text: string) => T
}

export type Option = FlagOption | ValueOption<unknown>
export type OptionTable = Record<string, Option>

type Camel<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Head}${Capitalize<Camel<Tail>>}` : S
export type Values<T extends OptionTable> = { -readonly [K in keyof T & string as Camel<K>]: T[K] extends ValueOption<infer V> ? V : boolean }

export interface Command<T extends OptionTable> {
  // The npm script, e.g. bench:users; error messages start with it.
  name: string
  // One or more lines under the usage line.
  summary: string
  options: T
  // How it is run, when not `npm run <name> -- [options]`.
  usage?: string
  // Lines after the options (environment variables, examples).
  notes?: string
}

// ---------------------------------------------------------------------------------------------
// Option kinds

export function flag(description: string): FlagOption {
  return { type: 'boolean', description }
}

export function text(value: string, description: string): ValueOption<string | null>
export function text(value: string, description: string, fallback: string): ValueOption<string>
export function text(value: string, description: string, fallback: string | null = null): ValueOption<string | null> {
  return { type: 'string', value, description, default: fallback, shown: fallback ?? undefined, parse: (t) => t }
}

// A file or folder: relative values are taken from the working directory, the default (shown as
// given) from the repository root.
export function path(value: string, description: string): ValueOption<string | null>
export function path(value: string, description: string, fallback: string, shown?: string): ValueOption<string>
export function path(value: string, description: string, fallback: string | null = null, shown?: string): ValueOption<string | null> {
  return { type: 'string', value, description, default: fallback === null ? null : resolve(ROOT, fallback), shown: shown ?? fallback ?? undefined, parse: (t) => resolve(t) }
}

export interface Limits {
  min?: number
  integer?: boolean
}

export function number(value: string, description: string, fallback?: null, limits?: Limits): ValueOption<number | null>
export function number(value: string, description: string, fallback: number, limits?: Limits): ValueOption<number>
export function number(value: string, description: string, fallback: number | null = null, limits: Limits = {}): ValueOption<number | null> {
  return { type: 'string', value, description, default: fallback, shown: fallback === null ? undefined : String(fallback), parse: (t) => numberOf(t, limits) }
}

// A comma-separated list of positive numbers (at least one).
export function numbers(value: string, description: string, fallback: number[]): ValueOption<number[]> {
  return {
    type: 'string', value, description, default: fallback, shown: fallback.join(','),
    parse: (t) => {
      const list = t.split(',').map((s) => s.trim()).filter(Boolean).map((s) => numberOf(s, { min: Number.MIN_VALUE }, t))
      if (list.length === 0) throw new OptionError(`needs at least one number, got '${t}'`)
      return list
    },
  }
}

// A comma-separated list of some of `allowed` (at least one).
export function choices<C extends string>(value: string, description: string, allowed: readonly C[], fallback: readonly C[] = allowed): ValueOption<C[]> {
  return {
    type: 'string', value, description: `${description} (any of ${allowed.join(', ')})`, default: [...fallback], shown: fallback.join(','),
    parse: (t) => {
      const list = t.split(',').map((s) => s.trim()).filter(Boolean)
      const wrong = list.filter((s) => !(allowed as readonly string[]).includes(s))
      if (wrong.length > 0) throw new OptionError(`has no ${wrong.map((s) => `'${s}'`).join(', ')} (it takes ${allowed.join(', ')})`)
      if (list.length === 0) throw new OptionError(`needs at least one of ${allowed.join(', ')}`)
      return list as C[]
    },
  }
}

function numberOf(t: string, { min = 0, integer = false }: Limits, whole = t): number {
  const n = t.trim() === '' ? NaN : Number(t)
  const kind = integer ? 'a whole number' : 'a number'
  const bound = min === Number.MIN_VALUE ? ' > 0' : ` ≥ ${min}`
  if (!Number.isFinite(n) || n < min || (integer && !Number.isInteger(n))) throw new OptionError(`needs ${kind}${bound}, got '${whole}'`)
  return n
}

// ---------------------------------------------------------------------------------------------
// Reading

export type Parsed<T extends OptionTable> = { help: true } | { help: false; values: Values<T> }

const camel = (name: string) => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())

// The values of argv, or { help: true }; throws OptionError for anything it does not take.
export function parseOptions<T extends OptionTable>(options: T, argv: string[]): Parsed<T> {
  if ('help' in options) throw new Error('--help is built in')
  const config = Object.fromEntries(Object.entries(options).map(([name, option]) => [name, { type: option.type }]))
  const table = { ...config, help: { type: 'boolean' as const, short: 'h' } }
  // --help wins over anything else on the line (read loosely, so an unknown option does not hide it).
  const loose = parseArgs({ args: argv, options: table, strict: false, allowPositionals: true, tokens: true })
  if (loose.tokens.some((token) => token.kind === 'option' && token.name === 'help')) return { help: true }
  let parsed: { values: Record<string, string | boolean | undefined> }
  try {
    parsed = parseArgs({ args: argv, options: table, strict: true, allowPositionals: false }) as typeof parsed
  } catch (error) {
    const failure = error as Error & { code?: string }
    // `--duration -1`: parseArgs will not take a value that starts with -; say what is wrong with it, if anything.
    if (failure.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && /ambiguous/.test(failure.message)) {
      const token = loose.tokens.find((t) => t.kind === 'option' && t.value?.startsWith('-') && options[t.name]?.type === 'string')
      const option = token?.kind === 'option' ? options[token.name] : undefined
      if (token?.kind === 'option' && option?.type === 'string') {
        try {
          option.parse(token.value!)
        } catch (problem) {
          if (problem instanceof OptionError) throw new OptionError(`--${token.name} ${problem.message}`)
          throw problem
        }
      }
    }
    throw new OptionError(describeParseError(failure))
  }
  const values: Record<string, unknown> = {}
  for (const [name, option] of Object.entries(options)) {
    const given = parsed.values[name]
    if (option.type === 'boolean') values[camel(name)] = given === true
    else if (given === undefined) values[camel(name)] = option.default
    else {
      try {
        values[camel(name)] = option.parse(given as string)
      } catch (error) {
        if (error instanceof OptionError) throw new OptionError(`--${name} ${error.message}`)
        throw error
      }
    }
  }
  return { help: false, values: values as Values<T> }
}

function describeParseError(error: Error & { code?: string }): string {
  const quoted = /'([^']+)'/.exec(error.message)?.[1]
  switch (error.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option ${quoted}`
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument '${quoted}' (every option starts with --)`
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': {
      const name = quoted?.split(' ')[0]
      if (/does not take an argument/.test(error.message)) return `${name} takes no value`
      if (/ambiguous/.test(error.message)) return `${name} needs a value (a value starting with - is written ${name}=-…)`
      return `${name} needs a value`
    }
    default:
      return error.message
  }
}

// The usage text: the usage line, the summary, every option with its value and default, notes.
export function usage<T extends OptionTable>(command: Command<T>): string {
  const rows: [string, string][] = Object.entries(command.options).map(([name, option]) => {
    const left = option.type === 'boolean' ? `--${name}` : `--${name} ${option.value}`
    const shown = option.type === 'string' && option.shown !== undefined ? ` (default ${option.shown})` : ''
    return [left, option.description + shown]
  })
  rows.push(['-h, --help', 'print this help and exit'])
  const width = Math.max(...rows.map(([left]) => left.length)) + 2
  const lines = [
    `Usage: ${command.usage ?? `npm run ${command.name} -- [options]`}`,
    '',
    ...command.summary.split('\n').map((line) => (line ? `  ${line}` : '')),
    '',
    'Options:',
    ...rows.map(([left, right]) => `  ${left.padEnd(width)}${right}`),
  ]
  if (command.notes) lines.push('', ...command.notes.split('\n'))
  return lines.join('\n') + '\n'
}

// Stops the script: the message (naming the option) and where the options are, exit code 2.
export function usageError(name: string, message: string): never {
  process.stderr.write(`${name}: ${message}\n${name}: run \`npm run ${name} -- --help\` for its options\n`)
  process.exit(2)
}

// process.argv's options for `command`: prints the usage and exits 0 on --help or -h; prints the
// problem and exits 2 on an unknown option or a bad value.
export function readOptions<T extends OptionTable>(command: Command<T>, argv: string[] = process.argv.slice(2)): Values<T> {
  let parsed: Parsed<T>
  try {
    parsed = parseOptions(command.options, argv)
  } catch (error) {
    if (error instanceof OptionError) usageError(command.name, error.message)
    throw error
  }
  if (parsed.help) {
    process.stdout.write(usage(command))
    process.exit(0)
  }
  return parsed.values
}
