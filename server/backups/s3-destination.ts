// A backup destination in an S3-compatible bucket: s3://bucket/prefix/campfire-backup-<date>/…,
// one object per file of the backup folder's layout, so `aws s3 cp --recursive` (or any S3
// client) brings a backup back as a folder `npm run restore` reads. The database copy is made
// in a staging folder in the storage folder, uploaded, and removed; the files are streamed from
// the storage folder (lib-storage uploads in parts, a few MB in memory at a time). Once
// uploaded, the listing is compared with what was sent and the database is downloaded again
// and checked with PRAGMA integrity_check. Credentials come from the AWS SDK's usual chain
// (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a profile, an instance role).
import { DeleteObjectsCommand, GetObjectCommand, ListObjectsV2Command, S3Client, type ListObjectsV2CommandOutput } from '@aws-sdk/client-s3'
import { Upload } from '@aws-sdk/lib-storage'
import { createReadStream, createWriteStream, existsSync } from 'node:fs'
import { mkdir, rm, rmdir } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { integrityOf, MANIFEST, openReadOnly } from './backup-folder.ts'
import { backupTime, compareListing, MARKER, MARKER_TEXT, VerificationFailed, type BackupEntry, type BackupWriter, type Destination } from './destination.ts'

export interface S3Place {
  bucket: string
  prefix: string
  endpoint: string | null
  region: string
}

const PART_BYTES = 8 * 1024 * 1024

export class S3Destination implements Destination {
  private readonly client: S3Client

  constructor(
    private readonly place: S3Place,
    // Where database copies are staged: a folder on the server's disk.
    private readonly stagingParent: string,
  ) {
    this.client = new S3Client({
      region: place.region,
      ...(place.endpoint ? { endpoint: place.endpoint, forcePathStyle: true } : {}),
      // Checksums only where S3 requires them: many S3-compatible servers refuse the newer defaults.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 3,
    })
  }

  get description(): string {
    return `s3://${this.place.bucket}/${this.place.prefix}${this.place.endpoint ? ` at ${this.place.endpoint}` : ''}`
  }

  url(name: string): string {
    return `s3://${this.place.bucket}/${this.keyOf(name)}`
  }

  keyOf(name: string, path = ''): string {
    return [this.place.prefix, name, path].filter(Boolean).join('/') + (path ? '' : '/')
  }

  async upload(key: string, body: Readable | string): Promise<void> {
    await new Upload({ client: this.client, params: { Bucket: this.place.bucket, Key: key, Body: body }, partSize: PART_BYTES, queueSize: 2 }).done()
  }

  // Every object under a key prefix, with its size.
  async list(prefix: string): Promise<Map<string, number>> {
    const found = new Map<string, number>()
    let token: string | undefined
    do {
      const page: ListObjectsV2CommandOutput = await this.client.send(new ListObjectsV2Command({ Bucket: this.place.bucket, Prefix: prefix, ContinuationToken: token }))
      for (const object of page.Contents ?? []) found.set(object.Key!.slice(prefix.length), object.Size ?? 0)
      token = page.IsTruncated ? page.NextContinuationToken : undefined
    } while (token)
    return found
  }

  async download(key: string, to: string): Promise<void> {
    const object = await this.client.send(new GetObjectCommand({ Bucket: this.place.bucket, Key: key }))
    await pipeline(object.Body as Readable, createWriteStream(to))
  }

  async begin(name: string, options: { scheduled: boolean }): Promise<BackupWriter> {
    const staging = join(this.stagingParent, name)
    await rm(staging, { recursive: true, force: true })
    await mkdir(staging, { recursive: true })
    const writer = new S3Writer(this, name, staging)
    try {
      if ((await this.list(this.keyOf(name))).size > 0) throw new Error(`${this.keyOf(name)} already holds objects; wait a second and run it again`)
      if (options.scheduled) await this.upload(this.keyOf(name, MARKER), MARKER_TEXT)
    } catch (error) {
      await rm(staging, { recursive: true, force: true })
      throw error
    }
    return writer
  }

  async listScheduled(): Promise<BackupEntry[]> {
    const base = this.place.prefix ? `${this.place.prefix}/` : ''
    const byBackup = new Map<string, Set<string>>()
    for (const key of (await this.list(base)).keys()) {
      const [name, ...rest] = key.split('/')
      if (!name || backupTime(name) === null || rest.length !== 1) continue
      if (!byBackup.has(name)) byBackup.set(name, new Set())
      byBackup.get(name)!.add(rest[0]!)
    }
    return [...byBackup].filter(([, top]) => top.has(MARKER)).map(([name, top]) => ({ name, complete: top.has(MANIFEST) }))
  }

  async remove(name: string): Promise<void> {
    const prefix = this.keyOf(name)
    const keys = [...(await this.list(prefix)).keys()].map((path) => prefix + path)
    for (let i = 0; i < keys.length; i += 1000) {
      const batch = keys.slice(i, i + 1000)
      const answer = await this.client.send(new DeleteObjectsCommand({ Bucket: this.place.bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }))
      if (answer.Errors?.length) throw new Error(`S3 did not delete ${answer.Errors.length} object(s) of ${name}: ${answer.Errors[0]!.Message ?? answer.Errors[0]!.Code}`)
    }
  }

  close(): void {
    this.client.destroy()
  }
}

class S3Writer implements BackupWriter {
  constructor(
    private readonly destination: S3Destination,
    private readonly name: string,
    readonly stagingDir: string,
  ) {}

  async put(path: string, source: string): Promise<number | null> {
    if (!existsSync(source)) return null
    let bytes = 0
    const stream = createReadStream(source)
    stream.on('data', (chunk) => (bytes += chunk.length))
    try {
      await this.destination.upload(this.destination.keyOf(this.name, path), stream)
    } catch (error) {
      if ((error as { code?: string }).code === 'ENOENT') return null
      throw error
    }
    return bytes
  }

  async verify(expected: Map<string, number>, database: string): Promise<void> {
    const found = await this.destination.list(this.destination.keyOf(this.name))
    found.delete(MARKER)
    compareListing(expected, found)
    const copy = join(this.stagingDir, 'read-back.sqlite3')
    await this.destination.download(this.destination.keyOf(this.name, database), copy)
    const db = openReadOnly(copy)
    try {
      const integrity = integrityOf(db)
      if (integrity !== 'ok') throw new VerificationFailed(`the database read back from S3 fails PRAGMA integrity_check: ${integrity}`)
    } finally {
      db.close()
      await rm(copy, { force: true })
    }
  }

  async finish(manifestJson: string): Promise<string> {
    await this.destination.upload(this.destination.keyOf(this.name, MANIFEST), manifestJson)
    await this.unstage()
    return this.destination.url(this.name)
  }

  async abort(): Promise<void> {
    await this.unstage()
    await this.destination.remove(this.name).catch(() => undefined)
  }

  // Removes the staged copy, and the staging folder once nothing else is in it.
  private async unstage(): Promise<void> {
    await rm(this.stagingDir, { recursive: true, force: true })
    await rmdir(dirname(this.stagingDir)).catch(() => undefined)
  }
}
