import BetterSqlite3 from 'better-sqlite3'
import { existsSync } from 'node:fs'
import { migrate, openConnection, upgradeFromUpstream, type Connection } from './database.ts'
import { pendingSteps } from './upstream-eras.ts'
import { createModels, type Models } from './index.ts'
import { preparingOnFirstUse, type LazyConnection } from './lazy-statements.ts'
import { Writer } from '../lib/writer.ts'

export interface StoreOptions {
  path: string
  migrationsDir: string
  synchronous?: 'NORMAL' | 'FULL'
  // false: another process has migrated the file already (a cluster's primary, server/cluster/).
  migrate?: boolean
  // Called once the connections are closed (the server's hold on the file, lib/database-lock.ts).
  onClose?: () => void
}

// Two connections to one SQLite file: the writer owns every write (through the queue),
// the reader serves GETs, each inside one read transaction.
export class Store {
  readonly writeDb: Connection
  readonly readDb: Connection
  readonly writer: Writer<Models>
  readonly appliedMigrations: string[]
  private readonly readModels: Models
  private readonly readTransaction: { deferred: <T>(fn: (models: Models) => T) => T }
  private readonly dataVersion: BetterSqlite3.Statement<[], number>
  private readonly onClose: (() => void) | undefined

  constructor(options: StoreOptions) {
    this.onClose = options.onClose
    const upgraded = options.migrate === false ? [] : upgradeBeforeWal(options.path)
    this.writeDb = openConnection(options.path, { synchronous: options.synchronous })
    this.appliedMigrations = options.migrate === false ? [] : [...upgraded, ...migrate(this.writeDb, options.migrationsDir)]
    this.readDb = openConnection(options.path, { synchronous: options.synchronous })
    this.readDb.pragma('query_only = ON')
    this.readModels = createModels(this.readDb, this.lazy(this.readDb))
    this.writer = new Writer(this.writeDb, createModels(this.writeDb, this.lazy(this.writeDb)))
    for (const lazy of this.lazyConnections) lazy.seal()
    const models = this.readModels
    this.readTransaction = this.readDb.transaction(<T>(fn: (m: Models) => T): T => fn(models)) as never
    this.dataVersion = this.readDb.prepare<[], number>('PRAGMA data_version').pluck()
  }

  // The database's generation as the reader sees it: SQLite's data_version, which moves whenever
  // any other connection commits a change to the file. Every write goes through another
  // connection (the writer's, another process's, a sqlite3 shell's), so while this number stays
  // put, nothing a read could see has changed. Outside a read transaction it is the newest one.
  generation(): number {
    return this.dataVersion.get()!
  }

  private readonly lazyConnections: LazyConnection[] = []

  private lazy(db: Connection): Connection {
    const lazy = preparingOnFirstUse(db)
    this.lazyConnections.push(lazy)
    return lazy.connection
  }

  // Compiles every model's statements on both connections now (they otherwise compile when first
  // run): a test's proof that all of their SQL is sound against this database. Answers how many.
  prepareAllStatements(): number {
    return this.lazyConnections.reduce((count, lazy) => count + lazy.prepareAll(), 0)
  }

  read<T>(fn: (models: Models) => T): T {
    return this.readTransaction.deferred(fn)
  }

  // A read of one statement, which sees one snapshot on its own: without the transaction's
  // BEGIN and COMMIT around it. Several statements that must agree go through read().
  readOne<T>(fn: (models: Models) => T): T {
    return fn(this.readModels)
  }

  write<T>(fn: (models: Models) => T): Promise<T> {
    return this.writer.write(fn)
  }

  // Runs a write at once, outside the queue; only for boot-time housekeeping.
  writeNow<T>(fn: (models: Models) => T): T {
    return this.writer.writeNow(fn)
  }

  close(): void {
    this.writer.close()
    this.readDb.close()
    this.writeDb.close()
    this.onClose?.()
  }
}

// An upstream file is upgraded before the writer connection switches it to WAL, in the journal
// mode it came in: a step that fails rolls everything back, and the file is as it was found, byte
// for byte, with no -wal or -shm beside it.
function upgradeBeforeWal(path: string): string[] {
  refuseUnknownSchema(path)
  if (!existsSync(path)) return []
  const db = openConnection(path, { keepJournalMode: true })
  try {
    return upgradeFromUpstream(db)
  } finally {
    db.close()
  }
}

// Before the writer connection switches the file to WAL: a database this server does not know is
// refused byte for byte as it was found, with nothing left beside it. A read-only connection to a
// WAL file leaves empty -wal and -shm files behind, so it is used only when they are there already
// (a -wal with frames in it must not be checkpointed into the file either); otherwise the
// connection may write but does not (query_only), and its close removes what its open created.
function refuseUnknownSchema(path: string): void {
  if (!existsSync(path)) return
  const readonly = existsSync(`${path}-wal`)
  const db = new BetterSqlite3(path, { readonly, fileMustExist: true })
  if (!readonly) db.pragma('query_only = ON')
  try {
    pendingSteps(db)
  } finally {
    db.close()
  }
}
