import { ensureUnpacked, unpackedProgram, type UnpackedPackage } from './unpacked-package.ts'

// The reverse-proxy test runs docs/proxies/nginx.conf in Debian's nginx (NGINX_PATH, or nginx on
// PATH, or the program of Debian's package unpacked by pretest into tmp/nginx/).
const NGINX: UnpackedPackage = { package: 'nginx', program: 'usr/sbin/nginx', variable: 'NGINX_PATH', neededBy: 'the nginx reverse-proxy test' }

export const nginxProgram = (): string | null => unpackedProgram(NGINX)
export const ensureNginx = (): boolean => ensureUnpacked(NGINX)

// Run as a command (pretest); the path check keeps it quiet when imported.
if (/server[\\/]build[\\/]nginx\.ts$/.test(process.argv[1] ?? '')) ensureNginx()
