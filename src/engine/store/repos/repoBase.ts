// Shared by the repositories (see ../repositories.ts): the SQL reader, the write batch, the Repo base
// class and the row-decoding helpers.
import { MemoryError } from '../../errors';


export type SqlParam = number | string | Uint8Array | null;
export type Row = Record<string, SqlParam>;

/** Read access the Store gives repositories (it catches up on other processes' writes first). */
export interface SqlReader {
  all(sql: string, params?: SqlParam[]): Row[];
  get(sql: string, params?: SqlParam[]): Row | undefined;
  /** Streams rows; return false from `cb` to stop. */
  each(sql: string, params: SqlParam[], cb: (row: Row) => boolean | void): void;
}

/** One logical write: the unit of a journal record. */
export class Batch {
  readonly stmts: [string, SqlParam[]][] = [];
  readonly touched = new Set<string>();
  /**
   * Of `touched`, the ids whose every change in this batch left what the recall index holds as it was (a message's
   * text moved into the raw record, unchanged). Local only, never journaled: another process re-reads them.
   */
  private readonly sameForIndex = new Set<string>();
  private readonly changedForIndex = new Set<string>();
  add(sql: string, params: SqlParam[], ...ids: string[]): void {
    this.stmts.push([sql, params]);
    for (const id of ids) { this.touched.add(id); this.changedForIndex.add(id); }
  }
  /** A statement that touches `id` without changing anything the recall index holds. */
  addIndexNeutral(sql: string, params: SqlParam[], id: string): void {
    this.stmts.push([sql, params]);
    this.touched.add(id);
    this.sameForIndex.add(id);
  }
  /** Ids touched only by index-neutral statements. */
  indexNeutral(): string[] {
    return [...this.sameForIndex].filter((id) => !this.changedForIndex.has(id));
  }
}

/** Ids index-neutral for a group of batches: every batch that touched them left the index's view alone. */
export function indexNeutralOf(batches: readonly Batch[]): string[] {
  const neutral = new Set<string>();
  const changed = new Set<string>();
  for (const b of batches) {
    const own = new Set(b.indexNeutral());
    for (const id of b.touched) (own.has(id) ? neutral : changed).add(id);
  }
  return [...neutral].filter((id) => !changed.has(id));
}

/** `values` in slices of at most `size`, so a statement's parameters stay bounded (IN lists, multi-row inserts). */
export function slices<T>(values: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < values.length; i += size) out.push(values.slice(i, i + size));
  return out;
}

/** `n` copies of `one` (a row's placeholders), comma-separated: `?, ?, ?` or `(?, ?), (?, ?)`. */
export function placeholders(n: number, one = '?'): string {
  return Array.from({ length: n }, () => one).join(', ');
}

export function badInput(message: string): MemoryError {
  return new MemoryError('E_BAD_INPUT', message);
}

export abstract class Repo {
  constructor(protected readonly q: SqlReader, private readonly batch: Batch | undefined) {}
  protected write(sql: string, params: SqlParam[], ...ids: string[]): void {
    if (!this.batch) throw new MemoryError('E_USAGE', 'store writes happen inside store.transaction(tx => …)');
    this.batch.add(sql, params, ...ids);
  }
  /** A write that touches `id` but leaves what the recall index holds for it unchanged (see Batch.addIndexNeutral). */
  protected writeIndexNeutral(sql: string, params: SqlParam[], id: string): void {
    if (!this.batch) throw new MemoryError('E_USAGE', 'store writes happen inside store.transaction(tx => …)');
    this.batch.addIndexNeutral(sql, params, id);
  }
}

export const str = (v: SqlParam | undefined): string | null => (v === null || v === undefined ? null : String(v));
export const num = (v: SqlParam | undefined): number | null => (v === null || v === undefined ? null : Number(v));
export function json<T>(v: SqlParam | undefined, fallback: T): T {
  if (typeof v !== 'string') return fallback;
  try {
    return JSON.parse(v) as T;
  } catch {
    return fallback;
  }
}

/** Rows aggregated by json_group_array. Unlike `json`, a parse failure throws: an empty list would read as "no rows". */
export function jsonRows<T>(v: SqlParam | undefined): T[] {
  return typeof v === 'string' ? (JSON.parse(v) as T[]) : [];
}

export function checkTime(name: string, v: unknown): void {
  if (v !== null && v !== undefined && (typeof v !== 'number' || !Number.isFinite(v))) throw badInput(`${name} must be a number of milliseconds`);
}
