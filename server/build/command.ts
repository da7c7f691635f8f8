import { parseArgs } from 'node:util'

// A build script run as a command: `-h`/`--help` prints its usage and does nothing else, an
// unknown option prints the usage to stderr and exits 2, and no option runs it.
export async function runCommand(name: string, usage: string, run: () => Promise<unknown>): Promise<void> {
  let help = false
  try {
    help = parseArgs({ options: { help: { type: 'boolean', short: 'h' } } }).values.help === true
  } catch (error) {
    console.error(`${name}: ${(error as Error).message}\n\n${usage}`)
    process.exit(2)
  }
  if (help) console.log(usage)
  else await run()
}
