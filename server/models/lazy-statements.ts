import type BetterSqlite3 from 'better-sqlite3'
import type { Connection } from './connection.ts'

type Statement = BetterSqlite3.Statement<unknown[], unknown>
type Mode = (statement: Statement) => void

// A statement compiled by SQLite the first time it runs, not when its model is made. The store
// makes every model twice at boot (reader and writer), some 500 statements: compiling them all
// was the largest single part of a cold start, for queries most starts never run.
class LazyStatement {
  #prepared: Statement | null = null
  readonly #modes: Mode[] = []

  constructor(
    readonly database: Connection,
    readonly source: string,
  ) {}

  prepared(): Statement {
    if (this.#prepared) return this.#prepared
    const statement = this.database.prepare(this.source) as Statement
    for (const mode of this.#modes) mode(statement)
    this.#prepared = statement
    return statement
  }

  // Modes (pluck, raw, expand, safeIntegers) are kept until it is compiled, as a model sets
  // them when it is made.
  #mode(mode: Mode): this {
    if (this.#prepared) mode(this.#prepared)
    else this.#modes.push(mode)
    return this
  }

  pluck(toggle?: boolean): this {
    return this.#mode((statement) => statement.pluck(toggle ?? true))
  }

  raw(toggle?: boolean): this {
    return this.#mode((statement) => statement.raw(toggle ?? true))
  }

  expand(toggle?: boolean): this {
    return this.#mode((statement) => statement.expand(toggle ?? true))
  }

  safeIntegers(toggle?: boolean): this {
    return this.#mode((statement) => statement.safeIntegers(toggle ?? true))
  }

  get reader(): boolean {
    return this.prepared().reader
  }

  get readonly(): boolean {
    return this.prepared().readonly
  }

  get busy(): boolean {
    return this.#prepared?.busy ?? false
  }

  run(...params: unknown[]): BetterSqlite3.RunResult {
    return this.prepared().run(...params)
  }

  get(...params: unknown[]): unknown {
    return this.prepared().get(...params)
  }

  all(...params: unknown[]): unknown[] {
    return this.prepared().all(...params)
  }

  iterate(...params: unknown[]): IterableIterator<unknown> {
    return this.prepared().iterate(...params)
  }

  columns(): BetterSqlite3.ColumnDefinition[] {
    return this.prepared().columns()
  }

  bind(...params: unknown[]): Statement {
    return this.prepared().bind(...params)
  }
}

export interface LazyConnection {
  // The connection the models are given: `prepare` answers a statement compiled on first use;
  // everything else is the connection's own.
  readonly connection: Connection
  // From now on `prepare` compiles at once, as the connection's own does: a model that prepares
  // a statement each time it is called (an IN list of varying length) must not leave one behind
  // in this list every time. The store seals it once the models are made.
  seal(): void
  // Compiles every statement made before the seal (a test's check that their SQL is sound).
  prepareAll(): number
}

// Wraps a connection so that the models made with it compile their statements when first run.
export function preparingOnFirstUse(db: Connection): LazyConnection {
  const statements: LazyStatement[] = []
  let sealed = false
  const prepare = (source: string) => {
    if (sealed) return db.prepare(source)
    const statement = new LazyStatement(db, source)
    statements.push(statement)
    return statement
  }
  const bound = new Map<PropertyKey, unknown>()
  const connection = new Proxy(db, {
    get(target, property) {
      if (property === 'prepare') return prepare
      const value: unknown = Reflect.get(target, property, target)
      if (typeof value !== 'function') return value
      let method = bound.get(property)
      if (!method) bound.set(property, (method = (value as (...args: unknown[]) => unknown).bind(target)))
      return method
    },
  })
  return {
    connection,
    seal() {
      sealed = true
    },
    prepareAll() {
      for (const statement of statements) statement.prepared()
      return statements.length
    },
  }
}
