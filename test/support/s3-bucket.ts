import { CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3'
import { startFauxqs } from 'fauxqs'

export interface TestBucket {
  endpoint: string
  client: S3Client
  // Every key under a prefix, without it.
  keys(prefix: string): Promise<string[]>
}

// An S3-compatible server (fauxqs) on a free loopback port in the test's process, over real
// HTTP, holding one empty bucket. The AWS SDK in this process, and in the servers it starts,
// sign with the test's keys.
export async function startS3Bucket(t: { after: (fn: () => Promise<void> | void) => void }, bucket: string): Promise<TestBucket> {
  process.env.AWS_ACCESS_KEY_ID = 'campfire-test'
  process.env.AWS_SECRET_ACCESS_KEY = 'campfire-test-secret'
  const server = await startFauxqs({ port: 0, logger: false, host: '127.0.0.1' } as Parameters<typeof startFauxqs>[0])
  t.after(() => server.stop())
  const client = new S3Client({ region: 'us-east-1', endpoint: server.address, forcePathStyle: true })
  t.after(() => client.destroy())
  await client.send(new CreateBucketCommand({ Bucket: bucket }))
  return {
    endpoint: server.address,
    client,
    async keys(prefix: string) {
      const keys: string[] = []
      let token: string | undefined
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }))
        keys.push(...(page.Contents ?? []).map((object) => object.Key!.slice(prefix.length)))
        token = page.IsTruncated ? page.NextContinuationToken : undefined
      } while (token)
      return keys
    },
  }
}
