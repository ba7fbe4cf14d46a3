// Keeps the store's vault-derived rows (note items and their links) in step with the files.
// The files are the source of truth (SPEC R-STORE-4): `rebuild` replaces every vault-derived row with
// one restored from the files alone; `syncFile`/`syncDir` re-index changed, added or removed notes.
// Invariants: every mutating call runs one at a time (a watcher's syncFile never interleaves with a
// rebuild); a note the index knows was model-written stays derived even without `origin` (R-MEM-4);
// hidden folders (`.quarantine/`), `logs/` and `longterm.md` never become note rows.
import { createHash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { MemoryError } from '../errors';
import type { Clock, Logger } from '../host';
import type { Item, ItemInput } from '../store/repositories';
import type { Store, Tx } from '../store/store';
import { LinkGraph } from './linkGraph';
import { MAX_NOTE_BYTES, parseNote, type ParsedNote } from './noteParser';
import { pathHash, scanVault } from './vaultScanner';
import { checkRelPath, isHiddenRelPath, noteId, resolveInVault, VAULT_DIRS, LONGTERM_FILE } from './vaultLayout';

export interface VaultSyncReport {
  scanned: number;
  added: number;
  updated: number;
  removed: number;
  problems: number;
  skipped: number;
}

/** What one `syncFile` did to the store: `ignored` = not a note path (logs/, longterm.md, not .md). */
export type FileSyncChange = 'added' | 'updated' | 'removed' | 'unchanged' | 'ignored';

export interface FileSyncResult {
  /** The note id of the path (null when the path can never be a note). */
  id: string | null;
  change: FileSyncChange;
}

/** The source type stamped on every vault-derived row, so `rebuild` can find them all. */
export const VAULT_SOURCE = 'vault';

/** `origin.by` values that mark a model-written note (kept in step with noteParser's list). */
const MODEL_ORIGINS = new Set(['capture', 'consolidation', 'team']);
const DERIVED_TAG = 'auto-consolidated';

/** Notes per store transaction: keeps each journal record (and the time the write lock is held) small. */
const CHUNK = 500;

export class VaultIndex {
  readonly links = new LinkGraph();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly vaultDir: string,
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** Builds the link graph from the store (cheap; no file reads). */
  loadFromStore(): void {
    this.store.items.forEach({ kind: 'note' }, (it) => {
      if (!it.path) return;
      this.links.setNote(it.id, this.store.links.from(it.id).map((l) => l.target));
    });
  }

  /** Reconciles every note file with the store: new and changed files are (re)indexed, vanished ones removed.
   *  `rebuild`: every row is rewritten from its file alone (no carried-over counters) and pathless note rows go. */
  syncAll(opts: { rebuild?: boolean; derivedPaths?: ReadonlySet<string> } = {}): Promise<VaultSyncReport> {
    return this.serial(() => this.syncAllNow(opts));
  }

  /** Re-indexes one file by vault-relative path (added, changed or deleted). Returns the note id, or null
   *  when the path is not (or no longer) an indexed note. Errors: E_BAD_ID for `..`, absolute or NUL paths. */
  async syncFile(relPath: string): Promise<string | null> {
    const r = await this.syncFileChange(relPath);
    return r.change === 'added' || r.change === 'updated' || r.change === 'unchanged' ? r.id : null;
  }

  /** Like syncFile, but says what changed (the watcher reports only real changes). */
  async syncFileChange(relPath: string): Promise<FileSyncResult> {
    const rel = checkRelPath(relPath, { allowHidden: true });
    return this.serial(() => this.syncFileNow(rel));
  }

  /**
   * Re-indexes everything at or under a vault-relative folder: notes on disk there and notes the store
   * has there (so a removed or renamed folder removes its notes). Returns the changes, unchanged ones left out.
   */
  async syncDir(relDir: string): Promise<FileSyncResult[]> {
    const rel = checkRelPath(relDir, { allowHidden: true });
    return this.serial(async () => {
      const paths = new Set<string>();
      const prefix = `${rel}/`;
      this.store.items.forEach({ kind: 'note' }, (it) => { if (it.path?.startsWith(prefix)) paths.add(it.path); });
      if (!isHiddenRelPath(rel)) {
        for await (const p of listNoteFiles(this.vaultDir, rel)) paths.add(p);
      }
      const out: FileSyncResult[] = [];
      for (const p of [...paths].sort()) {
        const r = await this.syncFileNow(p);
        if (r.change !== 'unchanged' && r.change !== 'ignored') out.push(r);
      }
      return out;
    });
  }

  /** Drops every vault-derived row and restores it from the files alone (SPEC R-STORE-4). */
  rebuild(): Promise<VaultSyncReport> {
    return this.serial(() => {
      // Rows are replaced but what the index knew about model-written notes is not forgotten (R-MEM-4).
      const derivedPaths = new Set<string>();
      this.store.items.forEach({ kind: 'note' }, (it) => { if (it.path && isDerivedItem(it)) derivedPaths.add(it.path); });
      return this.syncAllNow({ rebuild: true, derivedPaths });
    });
  }

  /** Parsed note of an indexed id (reads the file). */
  async readNote(id: string): Promise<ParsedNote | undefined> {
    const item = this.store.items.get(id);
    if (!item?.path) return undefined;
    const abs = resolveInVault(this.vaultDir, item.path, { allowHidden: true });
    const content = await fsp.readFile(abs);
    return parseNote(item.path, content, { knownDerived: isDerivedItem(item) });
  }

  // ---------------------------------------------------------------------------------------------

  /** Runs `fn` after every earlier mutating call has settled (a failure does not block later calls). */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async syncAllNow(opts: { rebuild?: boolean; derivedPaths?: ReadonlySet<string> }): Promise<VaultSyncReport> {
    const report: VaultSyncReport = { scanned: 0, added: 0, updated: 0, removed: 0, problems: 0, skipped: 0 };
    const rebuild = opts.rebuild === true;
    const known = new Map<string, Item>();
    this.store.items.forEach({ kind: 'note' }, (it) => { known.set(it.id, it); });
    const knownByPath = new Map<string, Item>();
    for (const it of known.values()) if (it.path) knownByPath.set(it.path, it);
    const derived = (rel: string) => isDerivedItem(knownByPath.get(rel)) || !!opts.derivedPaths?.has(rel);
    const entries = await scanVault(this.vaultDir, { logger: this.logger, knownDerived: derived });
    const seen = new Set<string>();
    const puts: { input: ItemInput; links: string[]; isNew: boolean }[] = [];
    for (const e of entries) {
      report.scanned++;
      const prev = known.get(e.id);
      if (!e.parsed || e.parsed.skipped) {
        report.skipped++;
        // A file that could not be read this time (permissions, a lock) keeps its row; binary/huge ones lose it.
        if (prev && e.problem?.code === 'unreadable') seen.add(e.id);
        continue;
      }
      if (e.relPath === LONGTERM_FILE) continue;
      seen.add(e.id);
      if (e.parsed.problems.length) report.problems++;
      const input = this.itemFor(e.parsed, rebuild ? undefined : prev, derived(e.relPath));
      const links = e.parsed.links.map((l) => l.target);
      if (!rebuild && prev && prev.contentHash === input.contentHash && prev.trust === input.trust && prev.path === input.path) {
        this.links.setNote(prev.id, links);
        continue;
      }
      puts.push({ input, links, isNew: !prev });
    }
    // Normal sync removes rows whose file vanished; rebuild also drops note rows without a path.
    const gone = [...known.values()].filter((it) => !seen.has(it.id) && (rebuild || it.path)).map((it) => it.id);
    for (let i = 0; i === 0 || i < puts.length; i += CHUNK) {
      const chunk = puts.slice(i, i + CHUNK);
      if (i === 0 && chunk.length === 0 && gone.length === 0) break;
      await this.store.transaction((tx) => {
        for (const p of chunk) {
          // Rebuild starts each row afresh (its sources, vector bookkeeping) in the same record as the new row.
          if (rebuild && !p.isNew) tx.items.delete(p.input.id);
          this.putNote(tx, p.input, p.links);
        }
        if (i === 0) for (const id of gone) this.deleteNote(tx, id);
      });
    }
    for (const p of puts) {
      this.links.setNote(p.input.id, p.links);
      if (p.isNew) report.added++;
      else report.updated++;
    }
    for (const id of gone) {
      this.links.removeNote(id);
      report.removed++;
    }
    this.logger.info(rebuild ? 'vault.rebuild' : 'vault.sync', { ...report });
    return report;
  }

  private async syncFileNow(rel: string): Promise<FileSyncResult> {
    if (!isNotePath(rel)) return { id: null, change: 'ignored' };
    const id = noteId(rel);
    const prev = this.store.items.get(id);
    const content = isHiddenRelPath(rel) ? undefined : await this.readNoteFile(rel);
    const parsed = content && parseNote(rel, content, { knownDerived: isDerivedItem(prev) });
    if (parsed && parsed.skipped) {
      this.logger.warn('vault.skipped', { pathHash: pathHash(rel), code: parsed.problems[0]?.code ?? 'skipped' });
    }
    if (!parsed || parsed.skipped) {
      // Gone, hidden (quarantined), not a regular file, binary or oversized: not a note row (as in syncAll).
      if (!prev) return { id, change: 'ignored' };
      await this.store.transaction((tx) => this.deleteNote(tx, id));
      this.links.removeNote(id);
      this.logger.info('vault.file', { change: 'removed', pathHash: pathHash(rel) });
      return { id, change: 'removed' };
    }
    const input = this.itemFor(parsed, prev);
    const links = parsed.links.map((l) => l.target);
    if (prev && prev.contentHash === input.contentHash && prev.trust === input.trust && prev.path === input.path) {
      this.links.setNote(id, links);
      return { id, change: 'unchanged' };
    }
    await this.store.transaction((tx) => this.putNote(tx, input, links));
    this.links.setNote(id, links);
    const change = prev ? 'updated' : 'added';
    this.logger.info('vault.file', { change, pathHash: pathHash(rel), problems: parsed.problems.length });
    return { id, change };
  }

  /**
   * The bytes of a note file, or undefined when it is missing, not a regular file, reached through a
   * symlinked folder (the scanner indexes the real folder instead) or leaves the vault. Oversized files
   * are not read: a 1-byte-too-large stand-in makes parseNote mark them `too_large`.
   */
  private async readNoteFile(rel: string): Promise<Buffer | undefined> {
    try {
      const abs = resolveInVault(this.vaultDir, rel);
      const [realRoot, realParent] = await Promise.all([fsp.realpath(this.vaultDir), fsp.realpath(path.dirname(abs))]);
      const parentRel = rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '';
      if (!samePath(realParent, path.join(realRoot, ...parentRel.split('/').filter(Boolean)))) return undefined;
      const st = await fsp.stat(abs);
      if (!st.isFile()) return undefined;
      if (st.size > MAX_NOTE_BYTES) return Buffer.alloc(MAX_NOTE_BYTES + 1, 0x20);
      return await fsp.readFile(abs);
    } catch (e) {
      if (e instanceof MemoryError) return undefined; // symlink leaving the vault: never followed
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR' || code === 'ELOOP') return undefined;
      throw e;
    }
  }

  private itemFor(p: ParsedNote, prev: Item | undefined, knownDerived = isDerivedItem(prev)): ItemInput {
    const now = this.clock.now();
    const contentHash = createHash('sha256')
      .update(JSON.stringify([p.frontmatter, p.body, p.trust, p.kind, p.summary]))
      .digest('hex')
      .slice(0, 32);
    const by = p.origin?.by;
    const modelWritten = knownDerived || (by !== undefined && MODEL_ORIGINS.has(by)) || p.tags.includes(DERIVED_TAG);
    return {
      id: p.id,
      kind: 'note',
      subkind: p.kind,
      text: `${p.summary}\n${p.body}`,
      title: p.relPath.split('/').pop()!.replace(/\.md$/i, ''),
      summary: p.summary,
      trust: p.trust,
      secret: p.containsSecrets,
      pinned: p.pinned,
      tags: [...p.tags],
      provider: p.origin?.provider ?? null,
      model: p.origin?.model ?? null,
      entryPath: by === 'capture' ? 'capture' : by === 'consolidation' ? 'consolidation' : 'vault',
      conversation: p.origin?.conversation ?? null,
      project: p.project ?? null,
      projectType: p.project ? null : (p.projectType ?? null),
      created: prev?.created ?? now,
      updated: now,
      validFrom: prev?.validFrom ?? now,
      sourceType: VAULT_SOURCE,
      path: p.relPath,
      contentHash,
      importance: prev?.importance ?? (p.pinned ? 1 : 0.5),
      salience: prev?.salience ?? null,
      accessCount: prev?.accessCount ?? 0,
      lastAccessed: prev?.lastAccessed ?? null,
      untrusted: prev?.untrusted ?? false,
      meta: {
        ...(prev?.meta ?? {}),
        derived: modelWritten || undefined,
        problems: p.problems.map((x) => x.code),
      },
    };
  }

  private putNote(tx: Tx, input: ItemInput, links: string[]): void {
    tx.items.put(input);
    tx.links.set(input.id, [...new Set(links)].map((target) => ({ target })));
  }

  private deleteNote(tx: Tx, id: string): void {
    tx.items.delete(id);
    tx.links.set(id, []);
  }
}

/** True for a vault-relative path that may hold a note row: `.md`, not logs/ or the root longterm.md. */
export function isNotePath(rel: string): boolean {
  return /\.md$/i.test(rel) && rel !== LONGTERM_FILE && rel.split('/')[0] !== VAULT_DIRS.logs;
}

/** A note the index knows was written by a model stays derived even if its `origin` is removed (R-MEM-4). */
export function isDerivedItem(item: Item | undefined): boolean {
  return !!item && (item.meta?.derived === true || item.entryPath === 'capture' || item.entryPath === 'consolidation');
}

/** Path equality as the platform's default filesystem sees it (case-insensitive on Windows and macOS). */
function samePath(a: string, b: string): boolean {
  return process.platform === 'win32' || process.platform === 'darwin' ? a.toLowerCase() === b.toLowerCase() : a === b;
}

/** Vault-relative paths of `.md` files at or under `relDir` (hidden folders and symlinks not followed). */
async function* listNoteFiles(vaultDir: string, relDir: string): AsyncGenerator<string> {
  let abs: string;
  try {
    abs = resolveInVault(vaultDir, relDir);
  } catch {
    return;
  }
  let entries: import('node:fs').Dirent[];
  try {
    entries = await fsp.readdir(abs, { withFileTypes: true });
  } catch {
    return; // gone, or a file: the store side of syncDir covers it
  }
  for (const ent of entries) {
    if (ent.name.startsWith('.')) continue;
    const rel = `${relDir}/${ent.name}`;
    if (ent.isDirectory()) yield* listNoteFiles(vaultDir, rel);
    else if ((ent.isFile() || ent.isSymbolicLink()) && isNotePath(rel)) yield rel;
  }
}
