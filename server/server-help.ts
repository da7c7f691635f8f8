// What `npm start -- --help`, `npm run dev -- --help` and `node dist/main.js --help` print.
const HELP = `Usage: npm start                  builds dist/, then serves from it
       npm run dev                builds the browser assets, then serves from the TypeScript sources
       node dist/main.js          (compiled, as in the container image: dist/container.js)

  Campfire serves HTTP and /cable on HTTP_PORT (else PORT, else 3000) at HTTP_BIND (0.0.0.0),
  with its database and files in CAMPFIRE_STORAGE_PATH (./storage). It takes no options:
  everything is set with environment variables, each listed with what it accepts in
  docs/configuration.md. A setting it cannot use stops it at boot with one line,
  "Campfire cannot start: …", and exit status 78.

Options:
  -h, --help   print this help and exit (nothing is built or started)
`

export function printServerHelp(): void {
  process.stdout.write(HELP)
}
