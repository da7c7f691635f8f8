import type { RailsSigning } from '../../lib/rails/signing.ts'
import type { Models } from '../../models/index.ts'
import type { slackRecords } from '../../models/imports/slack-records.ts'
import type { AttachmentServices } from '../../routes/messages/attachment-processing.ts'
import type { ExportSource } from './export-source.ts'
import type { ImportReport } from './report.ts'

export type Records = ReturnType<typeof slackRecords>
export type ImportModels = Models & { slackRecords: Records }

// Everything one import run shares: the export, the database (read through the reader, written
// through the server's Writer on a connection of its own, in batches), and what it has learned
// so far: which person and which room each Slack id became.
export interface ImportContext {
  source: ExportSource
  root: string
  // The files directly in a folder of the export ("general/"), from an index built once.
  filesIn(folder: string): readonly string[]
  report: ImportReport
  dryRun: boolean
  deactivateMissing: boolean
  signing: RailsSigning
  filesPath: string
  maxUploadBytes: number
  services: AttachmentServices
  read<T>(fn: (models: ImportModels) => T): T
  // A write through the Writer; with --dry-run nothing runs and `placeholder` is answered.
  write<T>(fn: (models: ImportModels) => T, placeholder: T): Promise<T>
  integrations: Map<string, string>
  people: Map<string, number>
  names: Map<number, string>
  // People banned here: what Slack kept of theirs is not brought back.
  banned: Set<number>
  rooms: Map<string, { id: number; name: string }>
  progress: Progress
}

export interface Progress {
  start(conversations: number, bytes: number): void
  conversation(index: number, name: string): void
  advance(bytes: number, messages: number): void
  stop(): void
}

// Placeholder ids for what a dry run would create: negative, so they never name a real row.
let nextPlaceholder = -1
export const placeholderId = (): number => nextPlaceholder--
