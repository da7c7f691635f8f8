import { ensureDebianPackage } from './debian-package.ts'

// The metrics tests read every scrape with the Prometheus project's own text-format parser
// (prometheus_client.parser, from its Python client), as Debian packages it: pretest installs it
// where it can. Debian's own python3 runs it.
export const PYTHON_PATH = '/usr/bin/python3'
export const PROMETHEUS_PARSER_FILE = '/usr/lib/python3/dist-packages/prometheus_client/parser.py'

export function ensurePrometheusParser(): boolean {
  return ensureDebianPackage({ name: 'python3-prometheus-client', program: PYTHON_PATH, file: PROMETHEUS_PARSER_FILE, packages: ['python3-prometheus-client'], neededBy: 'the metrics tests' })
}

// Run as a command (pretest); the path check keeps it quiet when imported.
if (/server[\\/]build[\\/]prometheus-parser\.ts$/.test(process.argv[1] ?? '')) ensurePrometheusParser()
