import { test } from 'node:test'
import assert from 'node:assert/strict'
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { MARKER } from '../../server/backups/destination.ts'
import { S3Destination } from '../../server/backups/s3-destination.ts'
import { stagingFolder } from '../../server/backups/open-destination.ts'
import { takeBackup } from '../../server/backups/take.ts'
import backup from '../../server/workers/backup.ts'
import { storageLocation } from '../../server/config.ts'
import { tempStorage } from '../helper.ts'
import { seededStorage } from '../admin/support/seeded-storage.ts'
import { startS3Bucket } from '../support/s3-bucket.ts'

const BUCKET = 'campfire-backups'
// Over lib-storage's part size (8 MB): uploaded in parts.
const BIG_BYTES = 9 * 1024 * 1024

async function s3Server(t: { after: (fn: () => Promise<void> | void) => void }) {
  return startS3Bucket(t, BUCKET)
}

function storageWithFiles(t: { after: (fn: () => void) => void }) {
  const { storage } = seededStorage(t)
  const location = storageLocation({ CAMPFIRE_STORAGE_PATH: storage })
  mkdirSync(join(location.filesPath, 'bi', 'gg'), { recursive: true })
  writeFileSync(join(location.filesPath, 'bi', 'gg', 'biggFILE'), Buffer.alloc(BIG_BYTES, 'big'))
  mkdirSync(join(location.filesPath, 'sm', 'al'), { recursive: true })
  writeFileSync(join(location.filesPath, 'sm', 'al', 'smalFILE'), 'a small file')
  return location
}

async function bytesOf(client: S3Client, key: string): Promise<Buffer> {
  const object = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }))
  return Buffer.from(await object.Body!.transformToByteArray())
}

test('a scheduled backup to an S3-compatible server uploads the folder’s layout in parts, reads it back, and leaves no staging behind', { timeout: 120_000 }, async (t) => {
  const { endpoint, client } = await s3Server(t)
  const location = storageWithFiles(t)
  const destination = new S3Destination({ bucket: BUCKET, prefix: 'team/chat', endpoint, region: 'us-east-1' }, stagingFolder(location.storagePath))
  t.after(() => destination.close())

  const taken = await takeBackup(location, destination, { scheduled: true })
  assert.equal(taken.where, `s3://${BUCKET}/team/chat/${taken.name}/`)
  const keys = [...(await destination.list(`team/chat/${taken.name}/`)).keys()].sort()
  assert.deepEqual(keys, ['db/production.sqlite3', 'files/bi/gg/biggFILE', 'files/sm/al/smalFILE', 'manifest.json', MARKER, 'secret_key_base'].sort())

  const big = await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: `team/chat/${taken.name}/files/bi/gg/biggFILE` }))
  assert.equal(big.ContentLength, BIG_BYTES)
  assert.match(big.ETag ?? '', /-2"?$/, 'the large file went up as a two-part multipart upload')
  assert.equal((await bytesOf(client, `team/chat/${taken.name}/files/sm/al/smalFILE`)).toString(), 'a small file')
  const manifest = JSON.parse((await bytesOf(client, `team/chat/${taken.name}/manifest.json`)).toString())
  assert.deepEqual(manifest.files, { count: 2, bytes: BIG_BYTES + 12 })

  const downloaded = join(tempStorage(t), 'downloaded.sqlite3')
  writeFileSync(downloaded, await bytesOf(client, `team/chat/${taken.name}/db/production.sqlite3`))
  const db = new BetterSqlite3(downloaded, { readonly: true })
  t.after(() => db.close())
  assert.equal(db.pragma('integrity_check', { simple: true }), 'ok')
  assert.ok((db.prepare('SELECT count(*) FROM messages').pluck().get() as number) > 0)
  assert.ok(!existsSync(stagingFolder(location.storagePath)), 'the staged database copy is removed, and its folder')
})

test('retention in a bucket deletes the schedule’s older backups only: not one taken by hand, nor objects that only look like a backup', { timeout: 120_000 }, async (t) => {
  const { endpoint, client } = await s3Server(t)
  const location = storageWithFiles(t)
  const place = { bucket: BUCKET, prefix: 'chat', endpoint, region: 'us-east-1' }
  const destination = new S3Destination(place, stagingFolder(location.storagePath))
  t.after(() => destination.close())
  const byHand = await takeBackup(location, destination, { scheduled: false, at: new Date('2026-11-01T00:00:00Z') })
  const old = await takeBackup(location, destination, { scheduled: true, at: new Date('2026-11-02T00:00:00Z') })
  await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'chat/campfire-backup-2026-11-03T00-00-00Z/manifest.json', Body: '{}' }))
  await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'chat/notes.txt', Body: 'keep me' }))

  // What the schedule's thread does: one more backup, then BACKUP_KEEP=1.
  const result = await backup({ location, destination: { kind: 's3', ...place }, keep: { count: 1 } })
  assert.equal(result.retentionProblem, null)
  assert.deepEqual(result.deleted, [old.name])
  const left = new Set([...(await destination.list('chat/')).keys()].map((key) => key.split('/')[0]))
  assert.deepEqual([...left].sort(), [byHand.name, 'campfire-backup-2026-11-03T00-00-00Z', result.taken.name, 'notes.txt'].sort())
})
