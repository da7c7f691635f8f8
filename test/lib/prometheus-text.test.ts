import { test } from 'node:test'
import assert from 'node:assert/strict'
import { parsePrometheusText, PrometheusTextError } from '../../server/lib/prometheus-text.ts'

test("Litestream's own exposition is read sample by sample, comments and blank lines skipped", () => {
  const text = [
    '# HELP litestream_replica_wal_offset The current WAL offset',
    '# TYPE litestream_replica_wal_offset gauge',
    'litestream_replica_wal_offset{db="/srv/db/production.sqlite3",name="file"} 16512',
    '',
    'litestream_sync_seconds{db="/srv/db/production.sqlite3"} 0.0027224709999999997',
    'go_memstats_alloc_bytes 4.221544e+06',
    'weird{a="quote \\" backslash \\\\ newline \\n",b="",} +Inf 1700000000000',
    'not_a_number NaN',
    'minus -Inf',
  ].join('\n')
  const samples = parsePrometheusText(text)
  assert.deepEqual(samples.slice(0, 3), [
    { name: 'litestream_replica_wal_offset', labels: { db: '/srv/db/production.sqlite3', name: 'file' }, value: 16512 },
    { name: 'litestream_sync_seconds', labels: { db: '/srv/db/production.sqlite3' }, value: 0.0027224709999999997 },
    { name: 'go_memstats_alloc_bytes', labels: {}, value: 4221544 },
  ])
  assert.deepEqual(samples[3], { name: 'weird', labels: { a: 'quote " backslash \\ newline \n', b: '' }, value: Infinity })
  assert.ok(Number.isNaN(samples[4]!.value))
  assert.equal(samples[5]!.value, -Infinity)
})

test('garbage is refused with the line it is on, never half read', () => {
  const garbage = [
    '<html><body>502 Bad Gateway</body></html>',
    'litestream_replica_wal_offset',
    'litestream_replica_wal_offset 12 13 14',
    'litestream_replica_wal_offset twelve',
    'litestream_replica_wal_offset 0x10',
    'litestream_replica_wal_offset{db="/x"}12',
    'litestream_replica_wal_offset{db="/x} 12',
    'litestream_replica_wal_offset{db=/x} 12',
    'litestream_replica_wal_offset{db="/x",db="/y"} 12',
    'litestream_replica_wal_offset{db="\\q"} 12',
    'litestream_replica_wal_offset{db="/x" 12',
    'litestream_replica_wal_offset{1db="/x"} 12',
    'litestream_replica_wal_offset 12 1.5',
    '9litestream 1',
    '{db="/x"} 1',
    '\u0000\u0001\u0002',
  ]
  for (const line of garbage) {
    assert.throws(
      () => parsePrometheusText(`# TYPE x gauge\nfine 1\n${line}\n`),
      (error: Error) => error instanceof PrometheusTextError && error.message.startsWith('line 3 is not a Prometheus sample'),
      line,
    )
  }
  assert.deepEqual(parsePrometheusText(''), [])
})
