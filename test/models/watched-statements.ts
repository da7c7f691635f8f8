import type { Connection } from '../../server/models/database.ts'

// A connection whose prepare() is watched: a model built on it shows the test the exact SQL it
// prepares, in order.
export function watchedStatements(db: Connection): { db: Connection; statements: string[] } {
  const statements: string[] = []
  const watched = new Proxy(db, {
    get(target, property) {
      if (property === 'prepare') {
        return (source: string) => {
          statements.push(source)
          return target.prepare(source)
        }
      }
      const value = Reflect.get(target, property, target) as unknown
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value
    },
  })
  return { db: watched, statements }
}
