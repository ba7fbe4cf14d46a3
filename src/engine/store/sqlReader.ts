// The store's read side for the repositories (repos/repoBase.ts `SqlReader`): each read first lets the store
// catch up on other processes' writes (`beforeRead`), then runs a cached statement — or, for `each`, a private
// one, since its callback may run other reads (even the same SQL) while the rows stream. Rows are plain objects
// keyed by column name, as sql.js's getAsObject builds them.
import type initSqlJs from 'sql.js';
import type { Row, SqlParam, SqlReader } from './repos/repoBase';

export interface ReaderHost {
  beforeRead(): void;
  /** The cached prepared statement for `sql`. */
  prep(sql: string): initSqlJs.Statement;
  /** A new statement for `sql` (the caller frees it). */
  prepareOwn(sql: string): initSqlJs.Statement;
  /** Around a streaming read: +1 before, -1 after (no refresh may swap the database under it). */
  nest(delta: 1 | -1): void;
}

// A statement's column names, read once: sql.js's getAsObject asks SQLite for every name of every row (and builds
// the row through two arrays) — a fifth of a flush's reads at 1M items. A statement recompiled with another number
// of columns (a schema change under a cached statement) reads its names again.
const columnNames = new WeakMap<initSqlJs.Statement, string[]>();

function rowOf(s: initSqlJs.Statement): Row {
  const values = s.get();
  let names = columnNames.get(s);
  if (!names || names.length !== values.length) {
    names = s.getColumnNames();
    columnNames.set(s, names);
  }
  const row: Row = {};
  for (let i = 0; i < names.length; i++) row[names[i]!] = values[i] as Row[string];
  return row;
}

export function sqlReader(h: ReaderHost): SqlReader {
  return {
    all: (sql: string, params: SqlParam[] = []): Row[] => {
      h.beforeRead();
      const s = h.prep(sql);
      try {
        s.bind(params);
        const rows: Row[] = [];
        while (s.step()) rows.push(rowOf(s));
        return rows;
      } finally {
        s.reset();
      }
    },
    get: (sql: string, params: SqlParam[] = []): Row | undefined => {
      h.beforeRead();
      const s = h.prep(sql);
      try {
        s.bind(params);
        return s.step() ? rowOf(s) : undefined;
      } finally {
        s.reset();
      }
    },
    each: (sql: string, params: SqlParam[], cb: (row: Row) => boolean | void): void => {
      h.beforeRead();
      const s = h.prepareOwn(sql);
      h.nest(1);
      try {
        s.bind(params);
        while (s.step()) if (cb(rowOf(s)) === false) break;
      } finally {
        h.nest(-1);
        s.free();
      }
    },
  };
}
