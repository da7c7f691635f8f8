import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { ROOT } from './support/server-process.ts'

function filesUnder(dir: string, suffix: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith(suffix))
    .map((file) => join(dir, file))
}

const DOCS = ['README.md', ...filesUnder('docs', '.md')]
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8')

// Every name the server reads from its environment: process.env.X, process.env['X'], and env.X
// where a function is handed process.env (server/config.ts).
function environmentVariablesRead(): Map<string, string> {
  const found = new Map<string, string>()
  for (const file of filesUnder('server', '.ts')) {
    for (const match of read(file).matchAll(/\benv(?:\.([A-Z][A-Z0-9_]*)|\[\s*['"]([A-Z][A-Z0-9_]*)['"]\s*\])/g)) {
      const name = match[1] ?? match[2]!
      if (!found.has(name)) found.set(name, file)
    }
  }
  return found
}

test('every environment variable the server reads is in the table of docs/configuration.md', () => {
  const configuration = read('docs/configuration.md')
  const variables = environmentVariablesRead()
  assert.ok(variables.size > 20, `found ${variables.size} variables`)
  for (const [name, file] of variables) {
    // PATH is the system's, named in the table where a program is looked up on it.
    assert.ok(configuration.includes(`\`${name}\``), `${name} (read in ${file}) is in docs/configuration.md`)
  }
})

test('every npm script is named in the README or the docs', () => {
  const scripts = Object.keys((JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts)
  const text = DOCS.map(read).join('\n')
  for (const script of scripts) {
    const named = [`npm run ${script}`, `npm run --silent ${script}`]
    if (script === 'start' || script === 'test') named.push(`npm ${script}`)
    // pre- and post- hooks run by themselves; they are named as themselves.
    if (/^(pre|post)/.test(script)) named.push(`\`${script}\``)
    assert.ok(named.some((name) => text.includes(name)), `npm script "${script}" is named in the README or docs/`)
  }
})

test("docs/development.md's table of npm scripts has a row for every script in package.json", () => {
  const scripts = Object.keys((JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts)
  const section = read('docs/development.md').split('\n## npm scripts\n')[1]!.split('\n## ')[0]!
  const rows = section.split('\n').filter((line) => line.startsWith('| `npm'))
  const listed = new Set(rows.map((row) => /^\| `npm (?:run )?([\w:-]+)/.exec(row)![1]!))
  for (const script of scripts) {
    // pre- and post- hooks run with their script; its row names them.
    const hookOf = /^(?:pre|post)(.+)$/.exec(script)?.[1]
    if (hookOf !== undefined && scripts.includes(hookOf)) assert.ok(rows.some((row) => row.includes(`\`${script}\``)), `${script} is named in its script's row`)
    else assert.ok(listed.has(script), `npm script "${script}" has a row in docs/development.md's table`)
  }
})

// GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens.
function anchor(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-')
}

function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>()
  let inCode = false
  for (const line of read(file).split('\n')) {
    if (line.startsWith('```')) inCode = !inCode
    const heading = !inCode && /^#{1,6} (.+)$/.exec(line)
    if (heading) anchors.add(anchor(heading[1]!))
  }
  return anchors
}

test('every relative link in the README and the docs reaches a file, and a heading when it names one', () => {
  let links = 0
  for (const file of DOCS) {
    for (const match of read(file).matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1]!
      if (/^[a-z]+:/.test(target)) continue
      links++
      const [path, hash] = target.split('#') as [string, string | undefined]
      const resolved = path === '' ? file : relative(ROOT, join(ROOT, dirname(file), path))
      assert.ok(existsSync(join(ROOT, resolved)), `${file} links to ${target}, which exists`)
      if (hash !== undefined && resolved.endsWith('.md')) assert.ok(anchorsOf(resolved).has(hash), `${file} links to ${target}, a heading of ${resolved}`)
    }
  }
  assert.ok(links > 30, `checked ${links} links`)
})

test('the README links every file in docs/ and stays a short front door', () => {
  const readme = read('README.md')
  for (const doc of filesUnder('docs', '.md')) assert.ok(readme.includes(`](${doc})`), `the README links ${doc}`)
  const lines = readme.split('\n').length
  assert.ok(lines <= 250, `the README has ${lines} lines, at most 250`)
})
