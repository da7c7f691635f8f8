import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { PROMETHEUS_PARSER_FILE, PYTHON_PATH } from '../../server/build/prometheus-parser.ts'

export interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

export interface Family {
  name: string
  type: string
  help: string
  samples: Sample[]
}

// The families Prometheus reads from a scrape, parsed by the Prometheus project's own parser
// (prometheus_client.parser.text_string_to_metric_families, Debian's python3-prometheus-client,
// installed by pretest). Text it cannot read throws.
const READ = `
import json, math, sys
from prometheus_client.parser import text_string_to_metric_families
families = []
for family in text_string_to_metric_families(sys.stdin.read()):
    families.append({"name": family.name, "type": family.type, "help": family.documentation,
        "samples": [{"name": s.name, "labels": s.labels, "value": s.value if math.isfinite(s.value) else str(s.value)} for s in family.samples]})
print(json.dumps(families))
`

export function parseScrape(text: string): Map<string, Family> {
  if (!existsSync(PROMETHEUS_PARSER_FILE)) throw new Error('the Prometheus parser is missing: apt-get install -y python3-prometheus-client (npm test\'s pretest installs it where it can)')
  const output = execFileSync(PYTHON_PATH, ['-c', READ], { input: text, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'], timeout: 30_000, maxBuffer: 64 * 1024 * 1024 })
  return new Map((JSON.parse(output) as Family[]).map((family) => [family.name, family]))
}

// The value of one sample: the named series (a family's name, or a histogram's name_count…)
// whose labels include those given; 0 when there is none, and the sum when several match.
export function valueOf(families: Map<string, Family>, series: string, labels: Record<string, string> = {}): number {
  let total = 0
  for (const family of families.values()) {
    for (const sample of family.samples) {
      if (sample.name !== series) continue
      if (Object.entries(labels).every(([name, value]) => sample.labels[name] === value)) total += Number(sample.value)
    }
  }
  return total
}
