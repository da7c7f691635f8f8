// Every npm script under test/load that takes options answers --help (and -h) with its usage and
// exits 0 without writing anything, and rejects an unknown option or a bad value by name, also
// without writing anything. Each case runs the script's entry as package.json names it
// (`node --import tsx <file> <args>`) in an empty working directory, with CAMPFIRE_STORAGE_PATH
// pointing into a temporary folder, and compares the repository's storage/ and tmp/bench/ before
// and after.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { choices, flag, number, numbers, OptionError, parseOptions, path, text, usage } from './support/options.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const TSX = import.meta.resolve('tsx')

// Each script's options, with the default its usage must show (null: none to show).
const EXPECTED: Record<string, Record<string, string | null>> = {
  seed: { force: null, password: 'secret123456', harness: null },
  'seed:users': { out: 'tmp/bench/users', force: null, people: '5000', rooms: '30', messages: '100000', password: 'secret123456' },
  'seed:large': { out: 'tmp/bench/large', force: null, messages: '2000000', password: 'secret123456' },
  'bench:cable': {
    clients: '1000', posters: '4', 'tput-secs': '15', paced: '30', 'latency-msgs': null, 'interval-ms': '200', 'paced-drain-secs': '20', 'tput-drain-secs': '60',
    idle: null, 'hold-secs': '10', base: null, sessions: null, cookie: null, room: null, 'cpu-prof': null, 'cpu-prof-us': '1000', 'gen-cpu-prof': null,
    keep: null, 'wait-quiet': '0', 'no-pin': null, 'no-floor': null, tsx: null, 'server-dir': null, out: 'tmp/bench',
  },
  'bench:users': {
    steps: '250,500,1000,2000,3000', 'step-secs': '60', 'warmup-secs': '15', 'drain-secs': '10', 'nav-secs': '10', 'post-secs': '300',
    fixture: 'tmp/bench/users', base: null, db: null, 'server-pid': null, 'server-dir': null, out: 'tmp/bench',
    'keep-going': null, 'in-place': null, 'no-gzip': null, 'no-pin': null, tsx: null, 'cpu-prof': null, 'cpu-prof-us': '1000', 'no-loop-probe': null, 'no-cpu-ledger': null, 'gen-cpu-prof': null,
  },
  'bench:caches': {
    steps: '250,500,1000,2000,3000', 'step-secs': '60', 'warmup-secs': '15', 'drain-secs': '10', 'nav-secs': '10', 'post-secs': '300',
    fixture: 'tmp/bench/users', 'server-dir': null, 'keep-going': null, 'in-place': null, 'no-gzip': null, 'no-pin': null, tsx: null,
    'cpu-prof': null, 'cpu-prof-us': '1000', 'no-loop-probe': null, 'no-cpu-ledger': null, 'gen-cpu-prof': null,
  },
  'bench:routes': {
    clients: '16', duration: '8', warmup: '2', routes: 'room_show,messages_page,sidebar,search,post_message', 'mixed-write-rate': '0',
    fixture: null, base: null, db: null, labels: null, cookie: null, password: null, 'server-dir': null, out: 'tmp/bench',
    'in-place': null, 'no-gzip': null, 'no-pin': null, tsx: null,
    'cpu-prof': null, 'cpu-prof-us': '1000', 'gen-cpu-prof': null, 'node-http': null, 'no-loop-probe': null, replay: null, 'replay-with': null, metrics: null,
  },
  'bench:fanout': {
    fixture: 'tmp/bench/large', base: null, room: '1', posts: '5', 'interval-ms': '2000', 'in-place': null, 'server-dir': null, out: 'tmp/bench', 'no-pin': null, 'no-floor': null, 'cpu-prof': null, tsx: null,
  },
  'bench:webhooks': { bots: '100', posts: '200', warmup: '50', receiver: 'hang', 'server-dir': null, out: 'tmp/bench', 'no-pin': null, tsx: null },
  'bench:push': { subscribers: '1000', posts: '100', 'interval-ms': '200', modes: 'none,hang,accept', out: 'tmp/bench', 'no-pin': null },
  'bench:uploads': { uploads: '20', megapixels: '12', uploaders: '2', route: 'room_show', clients: '16', warmup: '5', duration: '10', 'server-dir': null, out: 'tmp/bench', 'no-pin': null, tsx: null },
  'bench:cold-start': { runs: '10', 'timeout-secs': '30', 'server-dir': 'this checkout', out: 'tmp/bench', 'no-save': null },
  'bench:slow-clients': { idle: '10000', slowloris: '200', rate: '100', seconds: '20', rounds: '1', 'headers-timeout': '10', 'keep-alive-timeout': '120', out: 'tmp/bench', 'no-pin': null, tsx: null },
}

// package.json's `tsx test/load/<file>.ts [args]`, as a file and its fixed arguments.
const scripts = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>
function entryOf(script: string): string[] {
  const words = scripts[script]!.split(/\s+/)
  assert.equal(words[0], 'tsx', `${script} runs under tsx`)
  return [join(ROOT, words[1]!), ...words.slice(2)]
}

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

// What a run could write: the repository's storage/ and tmp/bench/, its own working directory and storage path.
function repoState(): string {
  const list = (dir: string) => (existsSync(dir) ? readdirSync(dir).sort().join(',') : '(none)')
  return `storage: ${list(join(ROOT, 'storage'))}; tmp/bench: ${list(join(ROOT, 'tmp', 'bench'))}`
}

async function run(script: string, args: string[]): Promise<Run> {
  const scratch = mkdtempSync(join(tmpdir(), 'campfire-options-'))
  const cwd = join(scratch, 'cwd')
  const storage = join(scratch, 'storage')
  mkdirSync(cwd)
  const before = repoState()
  try {
    const result = await new Promise<Run>((done) => {
      execFile(process.execPath, ['--import', TSX, ...entryOf(script), ...args], {
        cwd, timeout: 60_000, env: { ...process.env, CAMPFIRE_STORAGE_PATH: storage, NODE_OPTIONS: '' },
      }, (error, stdout, stderr) => done({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }))
    })
    assert.ok(!existsSync(storage), `${script} ${args.join(' ')} created ${storage}`)
    assert.deepEqual(readdirSync(cwd), [], `${script} ${args.join(' ')} wrote into its working directory`)
    assert.equal(repoState(), before, `${script} ${args.join(' ')} wrote into the repository`)
    return result
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}

// The line of the usage's option list that introduces --name (not one that merely mentions it).
function optionLine(usage: string, name: string): string | undefined {
  const lines = usage.split('\n')
  const start = lines.indexOf('Options:')
  const end = lines.indexOf('', start)
  const pattern = new RegExp(`^\\s*(?:-\\w, )?--${name.replace(/-/g, '\\-')}(?![\\w-])`)
  return start === -1 ? undefined : lines.slice(start + 1, end === -1 ? undefined : end).find((line) => pattern.test(line))
}

describe('the load scripts read their options', { concurrency: 2 }, () => {
  for (const [script, options] of Object.entries(EXPECTED)) {
    test(`npm run ${script} -- --help prints every option with its default, exits 0 and writes nothing`, async () => {
      const { code, stdout, stderr } = await run(script, ['--help'])
      assert.equal(code, 0, stderr)
      assert.match(stdout, new RegExp(`npm run ${script}`))
      for (const [name, fallback] of Object.entries(options)) {
        const line = optionLine(stdout, name)
        assert.ok(line, `--${name} is in the usage of ${script}:\n${stdout}`)
        if (fallback !== null) assert.ok(line.includes(`default ${fallback}`), `--${name} shows its default ${fallback}: ${line}`)
      }
      assert.ok(optionLine(stdout, 'help'), 'the usage names --help')
    })

    test(`npm run ${script} -- -h prints the same usage`, async () => {
      const { code, stdout, stderr } = await run(script, ['-h'])
      assert.equal(code, 0, stderr)
      assert.match(stdout, new RegExp(`npm run ${script}`))
      assert.ok(Object.keys(options).every((name) => optionLine(stdout, name)), stdout)
    })

    test(`npm run ${script} -- --no-such-option fails naming the option and writes nothing`, async () => {
      const { code, stderr } = await run(script, ['--no-such-option'])
      assert.notEqual(code, 0)
      assert.match(stderr, /--no-such-option/)
      assert.match(stderr, new RegExp(`^${script}: `, 'm'))
    })
  }

  // The reader's own errors are tested in-process below; these are the scripts' tables and checks.
  const invalid: [string, string[], RegExp][] = [
    ['bench:users', ['--steps', 'abc'], /--steps.*abc/],
    ['bench:routes', ['--duration', '-1'], /--duration needs a number ≥ 0, got '-1'/],
    ['bench:cable', ['--clients', '0'], /--clients.*0/],
    ['bench:fanout', ['--posts', 'many'], /--posts.*many/],
    ['bench:webhooks', ['--receiver', 'slow'], /--receiver has no 'slow'/],
    ['bench:push', ['--modes', 'stall'], /--modes has no 'stall'/],
    ['bench:slow-clients', ['--headers-timeout', '0'], /--headers-timeout.*0/],
    ['bench:cold-start', ['--runs', '0'], /--runs.*0/],
    ['seed:users', ['--people', '2.5'], /--people.*2\.5/],
    ['seed', ['--password'], /--password/],
    ['bench:caches', ['--out', 'elsewhere'], /--out/],
    ['bench:routes', ['--cpu-prof-us', 'often'], /--cpu-prof-us needs a number ≥ 0, got 'often'/],
    ['bench:routes', ['--base', 'http://127.0.0.1:9', '--db', 'x.sqlite3', '--labels', 'labels.json', '--cpu-prof'], /--cpu-prof only works on the server this script starts/],
    ['bench:users', ['--base', 'http://127.0.0.1:9', '--cpu-prof'], /--cpu-prof only works on the server this script starts/],
  ]
  for (const [script, args, message] of invalid) {
    test(`npm run ${script} -- ${args.join(' ')} fails with a clear error and writes nothing`, async () => {
      const { code, stderr } = await run(script, args)
      assert.equal(code, 2, stderr)
      assert.match(stderr, message)
    })
  }
})

test('npm run bench:caches -- --help names every cache setting, the shell cache and all off among them', async () => {
  const { code, stdout } = await run('bench:caches', ['--help'])
  assert.equal(code, 0)
  const settings = /default all: ([^)]+)\)/.exec(stdout)?.[1]?.split(', ')
  assert.ok(settings, stdout)
  for (const name of ['defaults', 'page=off', 'shell=off', 'fragments=off', 'all off']) assert.ok(settings.includes(name), `${name} in ${settings.join(', ')}`)
})

describe('the shared option reader', () => {
  const table = {
    steps: numbers('N,N,…', 'people per step', [250, 500]),
    'step-secs': number('SECS', 'seconds per step', 60),
    room: number('ID', 'a room', null, { integer: true, min: 1 }),
    base: text('URL', 'a server'),
    out: path('DIR', 'the report folder', 'tmp/bench'),
    routes: choices('A,B', 'routes', ['room_show', 'search'] as const),
    'no-pin': flag('no pinning'),
  }
  const values = (argv: string[]) => {
    const parsed = parseOptions(table, argv)
    assert.equal(parsed.help, false)
    return parsed.help ? assert.fail() : parsed.values
  }

  test('gives the defaults under camelCased names when nothing is passed', () => {
    assert.deepEqual(values([]), { steps: [250, 500], stepSecs: 60, room: null, base: null, out: join(ROOT, 'tmp', 'bench'), routes: ['room_show', 'search'], noPin: false })
  })

  test('converts what is passed, in either --name value or --name=value form', () => {
    const v = values(['--steps', '10,20', '--step-secs=2.5', '--room', '3', '--base', 'http://127.0.0.1:3000', '--out', 'x', '--routes', 'search', '--no-pin'])
    assert.deepEqual(v, { steps: [10, 20], stepSecs: 2.5, room: 3, base: 'http://127.0.0.1:3000', out: join(process.cwd(), 'x'), routes: ['search'], noPin: true })
  })

  test('answers --help and -h even beside an unknown option', () => {
    for (const argv of [['--help'], ['-h'], ['--bogus', '-h'], ['--steps', 'abc', '--help']]) assert.deepEqual(parseOptions(table, argv), { help: true }, argv.join(' '))
  })

  test('names the option in every error', () => {
    const cases: [string[], RegExp][] = [
      [['--bogus'], /^unknown option --bogus$/],
      [['-x'], /^unknown option -x$/],
      [['--room'], /^--room needs a value$/],
      [['--room', '-1'], /^--room needs a whole number ≥ 1, got '-1'$/],
      [['--base', '-x'], /^--base needs a value \(a value starting with - is written --base=-…\)$/],
      [['--room=0'], /^--room needs a whole number ≥ 1, got '0'$/],
      [['--step-secs', 'soon'], /^--step-secs needs a number ≥ 0, got 'soon'$/],
      [['--steps', ','], /^--steps needs at least one number/],
      [['--routes', 'search,nowhere'], /^--routes has no 'nowhere'/],
      [['--no-pin=yes'], /^--no-pin takes no value$/],
      [['stray'], /^unexpected argument 'stray'/],
    ]
    for (const [argv, message] of cases) assert.throws(() => parseOptions(table, argv), (error: Error) => error instanceof OptionError && message.test(error.message), argv.join(' '))
  })

  test('lists every option with its value and default in the usage', () => {
    const text = usage({ name: 'bench:x', summary: 'Does x.', options: table, notes: 'Env: X' })
    assert.match(text, /^Usage: npm run bench:x -- \[options\]\n\n {2}Does x\.\n\nOptions:\n/)
    assert.match(text, /\n {2}--steps N,N,… +people per step \(default 250,500\)\n/)
    assert.match(text, /\n {2}--room ID +a room\n/)
    assert.match(text, /\n {2}--out DIR +the report folder \(default tmp\/bench\)\n/)
    assert.match(text, /\n {2}--no-pin +no pinning\n/)
    assert.match(text, /\n {2}-h, --help +print this help and exit\n\nEnv: X\n$/)
  })
})
