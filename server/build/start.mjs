// `npm start` and `npm run dev`: `node server/build/start.mjs BUILD -- COMMAND…` runs the npm script
// BUILD, then COMMAND (with the arguments npm appends), passing on the signals it is sent (and a
// SIGTERM when whatever started it is gone) and exiting as it exits. With --help or -h among the arguments it builds nothing and starts nothing:
// the server's help (server/server-help.ts) is printed from the sources and it exits 0.
// Plain JavaScript, so the process that waits beside the server holds no TypeScript loader.
import { spawn, spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../..', import.meta.url))
const argv = process.argv.slice(2)
const split = argv.indexOf('--')
const build = argv.slice(0, split)
const command = argv.slice(split + 1)
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'

if (split < 1 || command.length === 0) {
  console.error('usage: node server/build/start.mjs BUILD-SCRIPT -- COMMAND [ARGS…]')
  process.exit(2)
}

if (command.some((arg) => arg === '--help' || arg === '-h')) {
  const help = spawnSync(process.execPath, ['--import', 'tsx', 'server/main.ts', '--help'], { cwd: root, stdio: 'inherit' })
  process.exit(help.status ?? 1)
}

for (const script of build) {
  const built = spawnSync(npm, ['run', '--silent', script], { cwd: root, stdio: 'inherit' })
  if (built.status !== 0) process.exit(built.status ?? 1)
}

const child = spawn(command[0], command.slice(1), { cwd: process.cwd(), stdio: 'inherit' })
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal))
// npm passes a SIGTERM sent to it alone on to the shell it ran this under, and exits; the shell
// dies of it without passing it on. Left like that, this process and the server would run on
// with no one to stop them: once the process that started this one is gone, the server is
// stopped as a SIGTERM stops it.
const parent = process.ppid
const orphaned = setInterval(() => {
  if (process.ppid === parent) return
  clearInterval(orphaned)
  child.kill('SIGTERM')
}, 250)
orphaned.unref()
child.on('error', (error) => {
  console.error(`${command[0]}: ${error.message}`)
  process.exit(1)
})
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)))
