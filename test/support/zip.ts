import yauzl from 'yauzl'

// Every entry of a zip, path → contents, read with yauzl (as another tool would read it).
export async function readZip(source: string | Buffer): Promise<Map<string, Buffer>> {
  const options = { lazyEntries: true, autoClose: false, strictFileNames: true }
  const zip = typeof source === 'string' ? await yauzl.openPromise(source, options) : await yauzl.fromBufferPromise(source, options)
  const entries = new Map<string, Buffer>()
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on('error', reject)
      zip.on('end', () => resolve())
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStreamPromise(entry).then(async (stream) => {
          const chunks: Buffer[] = []
          for await (const chunk of stream) chunks.push(chunk as Buffer)
          entries.set(entry.fileName, Buffer.concat(chunks))
          zip.readEntry()
        }, reject)
      })
      zip.readEntry()
    })
  } finally {
    zip.close()
  }
  return entries
}

export function jsonEntry<T = unknown>(entries: Map<string, Buffer>, path: string): T {
  const entry = entries.get(path)
  if (!entry) throw new Error(`no ${path} in the zip (it has ${[...entries.keys()].join(', ')})`)
  return JSON.parse(entry.toString('utf8')) as T
}
