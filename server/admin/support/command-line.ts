// The admin scripts' command lines, read with Node's util.parseArgs. Each script describes its
// arguments and options once; readCommandLine answers --help / -h with the usage built from that
// description (exit 0), and stops at an unknown option or a missing argument (exit 2), before
// the script reads or writes anything. fail() is how a script stops on a problem it found (exit 1).
import { parseArgs } from 'node:util'
import { ConfigError, loadConfig, storageLocation, type Config, type StorageLocation } from '../../config.ts'

export interface AdminOption {
  type: 'string' | 'boolean'
  // What the value looks like in the usage: DIR, FILE…
  value?: string
  description: string
}

export interface AdminCommand<O extends Record<string, AdminOption>> {
  // The npm script, e.g. reset-password; messages start with it.
  name: string
  // The script's file in dist/admin/ when it is not named as the npm script (import:slack).
  file?: string
  // The arguments as the usage line shows them, e.g. 'EMAIL'.
  arguments?: string
  // How many arguments it takes.
  positionals?: { min: number; max: number }
  summary: string
  options: O
  // Lines after the options (environment variables, examples).
  notes?: string
}

export type OptionValues<O extends Record<string, AdminOption>> = { [K in keyof O]: O[K]['type'] extends 'string' ? string | undefined : boolean }

export interface CommandLine<O extends Record<string, AdminOption>> {
  values: OptionValues<O>
  positionals: string[]
}

export const STORAGE_NOTES = [
  'Environment: CAMPFIRE_STORAGE_PATH (default ./storage) and RAILS_ENV (default production) find',
  'the database (<storage>/db/<RAILS_ENV>.sqlite3) and the files (<storage>/files), as for the server.',
].join('\n')

export function usage<O extends Record<string, AdminOption>>(command: AdminCommand<O>): string {
  const shape = [command.arguments, Object.keys(command.options).length > 0 ? '[options]' : ''].filter(Boolean).join(' ')
  const rows: [string, string][] = Object.entries(command.options).map(([name, option]) => [
    option.type === 'string' ? `--${name} ${option.value ?? 'VALUE'}` : `--${name}`,
    option.description,
  ])
  rows.push(['-h, --help', 'print this help and exit'])
  const width = Math.max(...rows.map(([left]) => left.length)) + 2
  const lines = [
    `Usage: npm run ${command.name}${shape ? ` -- ${shape}` : ''}`,
    `       node dist/admin/${command.file ?? command.name}.js${shape ? ` ${shape}` : ''}   (compiled, as in the container image)`,
    '',
    ...command.summary.split('\n').map((line) => (line ? `  ${line}` : '')),
    '',
    'Options:',
    ...rows.map(([left, right]) => `  ${left.padEnd(width)}${right}`),
  ]
  if (command.notes) lines.push('', ...command.notes.split('\n'))
  return lines.join('\n') + '\n'
}

export function readCommandLine<O extends Record<string, AdminOption>>(command: AdminCommand<O>, argv: string[] = process.argv.slice(2)): CommandLine<O> {
  const table = {
    ...Object.fromEntries(Object.entries(command.options).map(([name, option]) => [name, { type: option.type }])),
    help: { type: 'boolean' as const, short: 'h' },
  }
  // --help wins over anything else on the line, even an option it does not know.
  const loose = parseArgs({ args: argv, options: table, strict: false, allowPositionals: true, tokens: true })
  if (loose.tokens.some((token) => token.kind === 'option' && token.name === 'help')) {
    process.stdout.write(usage(command))
    process.exit(0)
  }
  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] }
  try {
    parsed = parseArgs({ args: argv, options: table, strict: true, allowPositionals: true }) as typeof parsed
  } catch (error) {
    usageError(command.name, describe(error as Error & { code?: string }))
  }
  const { min, max } = command.positionals ?? { min: 0, max: 0 }
  if (parsed.positionals.length < min) usageError(command.name, `needs ${command.arguments ?? 'an argument'}`)
  if (parsed.positionals.length > max) usageError(command.name, `unexpected argument '${parsed.positionals[max]}'`)
  const values = Object.fromEntries(Object.entries(command.options).map(([name, option]) => [name, option.type === 'boolean' ? parsed.values[name] === true : parsed.values[name]]))
  return { values: values as OptionValues<O>, positionals: parsed.positionals }
}

function describe(error: Error & { code?: string }): string {
  const quoted = /'([^']+)'/.exec(error.message)?.[1]
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `unknown option ${quoted}`
  if (error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const name = quoted?.split(' ')[0]
    return /does not take an argument/.test(error.message) ? `${name} takes no value` : `${name} needs a value`
  }
  return error.message
}

export function usageError(name: string, message: string): never {
  process.stderr.write(`${name}: ${message}\n${name}: run \`npm run ${name} -- --help\` for its arguments and options\n`)
  process.exit(2)
}

// Stops the script with what went wrong (and, by then, what was or was not written).
export function fail(name: string, message: string): never {
  process.stderr.write(`${name}: ${message}\n`)
  process.exit(1)
}

// Where the server keeps the database and files, as it finds them; a setting it would refuse (a
// RAILS_ENV that is a path) stops the script in one line, before anything is read or written.
export function scriptStorage(name: string, env: NodeJS.ProcessEnv = process.env): StorageLocation {
  return orFail(name, () => storageLocation(env))
}

// The server's whole configuration, for a script that acts as the server would (the Slack import).
export function scriptConfig(name: string): Config {
  return orFail(name, () => loadConfig())
}

function orFail<T>(name: string, read: () => T): T {
  try {
    return read()
  } catch (error) {
    if (error instanceof ConfigError) fail(name, error.message)
    throw error
  }
}
