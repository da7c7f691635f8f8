import { ensureDebianPackage } from './debian-package.ts'

// The multi-process tests run against Debian's redis-server, installed by pretest where it can
// be (see debian-package.ts) and started by each test on a free loopback port.
export const REDIS_SERVER_PATH = process.env.REDIS_SERVER_PATH || 'redis-server'

export function ensureRedis(): boolean {
  return ensureDebianPackage({ name: 'redis-server', program: REDIS_SERVER_PATH, packages: ['redis-server'], neededBy: 'the multi-process tests' })
}

// Run as a command (pretest); the path check keeps it quiet when imported.
if (/server[\\/]build[\\/]redis\.ts$/.test(process.argv[1] ?? '')) ensureRedis()
