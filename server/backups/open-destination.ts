// The Destination a BACKUP_DESTINATION (or `npm run backup -- --to`) names.
import { join } from 'node:path'
import type { Destination } from './destination.ts'
import { FolderDestination } from './folder-destination.ts'
import { S3Destination } from './s3-destination.ts'
import type { BackupDestination } from '../backup-config.ts'

// An S3 backup's database copy is made here first, in the storage folder.
export function stagingFolder(storagePath: string): string {
  return join(storagePath, '.backup-staging')
}

export function openDestination(destination: BackupDestination, storagePath: string): Destination & { close?(): void } {
  return destination.kind === 'folder' ? new FolderDestination(destination.path) : new S3Destination(destination, stagingFolder(storagePath))
}
