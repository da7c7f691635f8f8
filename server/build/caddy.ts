import { ensureUnpacked, unpackedProgram, type UnpackedPackage } from './unpacked-package.ts'

// The reverse-proxy test runs docs/proxies/Caddyfile in Debian's Caddy (CADDY_PATH, or caddy on
// PATH, or the program of Debian's package unpacked by pretest into tmp/caddy/).
const CADDY: UnpackedPackage = { package: 'caddy', program: 'usr/bin/caddy', variable: 'CADDY_PATH', neededBy: 'the Caddy reverse-proxy test' }

export const caddyProgram = (): string | null => unpackedProgram(CADDY)
export const ensureCaddy = (): boolean => ensureUnpacked(CADDY)

// Run as a command (pretest); the path check keeps it quiet when imported.
if (/server[\\/]build[\\/]caddy\.ts$/.test(process.argv[1] ?? '')) ensureCaddy()
