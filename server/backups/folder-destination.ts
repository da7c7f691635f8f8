// A backup destination that is a folder: <folder>/campfire-backup-<date>/, written under the
// hidden working name .campfire-backup-<date>.partial and renamed once verified, so a folder
// with the dated name is always a whole backup.
import { existsSync, readdirSync, statSync } from 'node:fs'
import { copyFile, mkdir, rename, rm, writeFile } from 'node:fs/promises'
import { dirname, join, relative } from 'node:path'
import { integrityOf, MANIFEST, openReadOnly } from './backup-folder.ts'
import { listFiles } from '../lib/files.ts'
import { backupTime, compareListing, MARKER, MARKER_TEXT, VerificationFailed, type BackupEntry, type BackupWriter, type Destination } from './destination.ts'

const PARTIAL = /^\.(.+)\.partial$/

export class FolderDestination implements Destination {
  constructor(readonly path: string) {}

  get description(): string {
    return this.path
  }

  async begin(name: string, options: { scheduled: boolean }): Promise<BackupWriter> {
    const working = join(this.path, `.${name}.partial`)
    const folder = join(this.path, name)
    if (existsSync(folder)) throw new Error(`${folder} already exists; wait a second and run it again`)
    await rm(working, { recursive: true, force: true })
    await mkdir(working, { recursive: true })
    if (options.scheduled) await writeFile(join(working, MARKER), MARKER_TEXT)
    return new FolderWriter(working, folder, options.scheduled)
  }

  async listScheduled(): Promise<BackupEntry[]> {
    let names: string[]
    try {
      names = readdirSync(this.path)
    } catch {
      return []
    }
    const entries: BackupEntry[] = []
    for (const entry of names) {
      const partial = PARTIAL.exec(entry)
      const name = partial ? partial[1]! : entry
      if (backupTime(name) === null || !existsSync(join(this.path, entry, MARKER))) continue
      entries.push({ name, complete: !partial && existsSync(join(this.path, entry, MANIFEST)) })
    }
    return entries
  }

  async remove(name: string): Promise<void> {
    await rm(join(this.path, `.${name}.partial`), { recursive: true, force: true })
    await rm(join(this.path, name), { recursive: true, force: true })
  }
}

class FolderWriter implements BackupWriter {
  constructor(
    readonly stagingDir: string,
    private readonly folder: string,
    private readonly scheduled: boolean,
  ) {}

  async put(path: string, source: string): Promise<number | null> {
    const target = join(this.stagingDir, path)
    if (target !== source) {
      await mkdir(dirname(target), { recursive: true })
      try {
        await copyFile(source, target)
      } catch (error) {
        if ((error as { code?: string }).code === 'ENOENT' && !existsSync(source)) return null
        throw error
      }
    }
    return statSync(target).size
  }

  async verify(expected: Map<string, number>, database: string): Promise<void> {
    const found = new Map(listFiles(this.stagingDir).map((file) => [relative(this.stagingDir, file), statSync(file).size]))
    if (this.scheduled) found.delete(MARKER)
    compareListing(expected, found)
    const copy = openReadOnly(join(this.stagingDir, database))
    try {
      const integrity = integrityOf(copy)
      if (integrity !== 'ok') throw new VerificationFailed(`the database in the backup fails PRAGMA integrity_check: ${integrity}`)
    } finally {
      copy.close()
    }
  }

  async finish(manifestJson: string): Promise<string> {
    await writeFile(join(this.stagingDir, MANIFEST), manifestJson)
    await rename(this.stagingDir, this.folder)
    return this.folder
  }

  async abort(): Promise<void> {
    await rm(this.stagingDir, { recursive: true, force: true })
  }
}
