// Keeps the store's vault-derived rows (note items and their links) in step with the files.
// The files are the source of truth (SPEC R-STORE-4): `rebuild` replaces every vault-derived row with
// one restored from the files alone; `syncFile`/`syncDir` re-index changed, added or removed notes.
// Invariants: every mutating call runs one at a time (a watcher's syncFile never interleaves with a
// rebuild); a note the index knows was model-written stays derived even without `origin` (R-MEM-4);
// hidden folders (`.quarantine/`), `logs/` and `longterm.md` never become note rows; a vault root that
// cannot be seen (unmounted, deleted) never removes rows; links.to_id always holds the LinkGraph's
// resolution of each stored link (re-resolved only for links near notes that arrived or left).
import { createHash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { MemoryError } from '../errors';
import type { Clock, Logger } from '../host';
import type { FileStamp, Item, ItemInput, Link } from '../store/repositories';
import type { Store, Tx } from '../store/store';
import { LinkGraph } from './linkGraph';
import { MAX_NOTE_BYTES, parseNote, type ParsedNote } from './noteParser';
import { pathHash, scanVaultTree, SETTLE_MS, type FileStampInfo } from './vaultScanner';
import { checkRelPath, isHiddenRelPath, noteId, resolveInVault, NOTE_ID_PREFIX, VAULT_DIRS, LONGTERM_FILE } from './vaultLayout';

export interface VaultSyncReport {
  scanned: number;
  added: number;
  updated: number;
  removed: number;
  problems: number;
  skipped: number;
  /** Files actually read and parsed (the rest matched their stored mtime and size, or were skipped). */
  read: number;
  /** Present (true) when the vault folder could not be seen: nothing was changed. */
  missing?: true;
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
/** Link re-resolutions per transaction (one small UPDATE each). */
const RELINK_CHUNK = 2000;
/** Above this many source notes, stored to_ids are read in one query instead of one query per note. */
const RELINK_BULK_READ = 64;

/**
 * A second vault root (the project vault, src/engine/project/) shares this class: its own id prefix (rows of
 * other roots are never touched) and a hook that sets what the root decides about a row (scope, trust, gate).
 */
export interface VaultRootOptions {
  /** Id prefix of this root's rows (default `vt:`); every row whose id does not start with it is another root's. */
  idPrefix?: string;
  /** Adjusts a row before it is written (called for every file read: added, changed, re-read). */
  decorate?: (input: ItemInput, parsed: ParsedNote) => ItemInput;
}

export class VaultIndex {
  readonly links = new LinkGraph();
  readonly idPrefix: string;
  private queue: Promise<unknown> = Promise.resolve();
  /** The graph mirrors the store's note rows (set by loadFromStore; cleared when a write failed midway). */
  private graphLoaded = false;

  constructor(
    readonly vaultDir: string,
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly root: VaultRootOptions = {},
  ) {
    this.idPrefix = root.idPrefix ?? NOTE_ID_PREFIX;
  }

  /** This root's note id of a vault-relative path. */
  noteId(rel: string): string {
    return this.idPrefix === NOTE_ID_PREFIX ? noteId(rel) : this.idPrefix + noteId(rel).slice(NOTE_ID_PREFIX.length);
  }

  /** Id, path and stamp of this root's note rows only. */
  stamps(): FileStamp[] {
    return this.store.items.fileStamps('note').filter((s) => s.id.startsWith(this.idPrefix));
  }

  /** Builds the link graph from the store: two queries (note ids, all their links), no file reads. */
  loadFromStore(): void {
    const ids = this.stamps().filter((s) => s.path).map((s) => s.id);
    const targets = new Map<string, string[]>();
    for (const l of this.store.links.allFrom(this.idPrefix)) {
      const list = targets.get(l.fromId);
      if (list) list.push(l.target); else targets.set(l.fromId, [l.target]);
    }
    const keep = new Set(ids);
    for (const id of this.links.noteIds()) if (!keep.has(id)) this.links.removeNote(id);
    for (const id of ids) this.links.setNote(id, targets.get(id) ?? []);
    this.graphLoaded = true;
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
      for (const st of this.stamps()) if (st.path?.startsWith(prefix)) paths.add(st.path);
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
      this.store.items.forEach({ kind: 'note' }, (it) => { if (it.path && it.id.startsWith(this.idPrefix) && isDerivedItem(it)) derivedPaths.add(it.path); });
      return this.syncAllNow({ rebuild: true, derivedPaths });
    });
  }

  /** Parsed note of an indexed id (reads the file). */
  async readNote(id: string): Promise<ParsedNote | undefined> {
    const item = this.store.items.get(id);
    if (!item?.path || !id.startsWith(this.idPrefix)) return undefined;
    const abs = resolveInVault(this.vaultDir, item.path, { allowHidden: true });
    const content = await fsp.readFile(abs);
    return { ...parseNote(item.path, content, { knownDerived: isDerivedItem(item) }), id };
  }

  // ---------------------------------------------------------------------------------------------

  /** Runs `fn` after every earlier mutating call has settled (a failure does not block later calls). */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private ensureGraph(): void {
    if (!this.graphLoaded) this.loadFromStore();
  }

  private async syncAllNow(opts: { rebuild?: boolean; derivedPaths?: ReadonlySet<string> }): Promise<VaultSyncReport> {
    const report: VaultSyncReport = { scanned: 0, added: 0, updated: 0, removed: 0, problems: 0, skipped: 0, read: 0 };
    const rebuild = opts.rebuild === true;
    this.ensureGraph();
    // Only id, path and stamp of every row: full rows are fetched for the files that were actually read.
    const stamps = this.stamps();
    const stampByPath = new Map<string, FileStamp>();
    for (const st of stamps) if (st.path) stampByPath.set(st.path, st);
    const full = new Map<string, Item | undefined>();
    if (rebuild) this.store.items.forEach({ kind: 'note' }, (it) => { if (it.id.startsWith(this.idPrefix)) full.set(it.id, it); });
    const prevOf = (id: string): Item | undefined => {
      if (!full.has(id)) full.set(id, rebuild ? undefined : this.store.items.get(id));
      return full.get(id);
    };
    const derived = (rel: string) => isDerivedItem(prevOf(this.noteId(rel))) || !!opts.derivedPaths?.has(rel);
    const known = (rel: string) => {
      const st = stampByPath.get(rel);
      return st && st.fileMtime !== null && st.fileSize !== null ? { mtimeMs: st.fileMtime, size: st.fileSize } : undefined;
    };
    const scan = await scanVaultTree(this.vaultDir, { logger: this.logger, knownDerived: derived, known: rebuild ? undefined : known });
    // An unmounted drive or deleted folder looks like an empty vault; so does an empty mount point (or the empty
    // folder something re-created there). Either way the rows stay: the files may well come back.
    if (scan.missing || (scan.empty && stampByPath.size > 0)) {
      this.logger.warn('vault.missing', { reason: scan.missing ? 'unreadable' : 'empty', rows: stampByPath.size, rebuild });
      return { ...report, missing: true };
    }
    // Another process (or index) may have added or removed notes since the graph was loaded: unchanged files
    // are not parsed, so their links must come from the store.
    if (this.links.size !== stampByPath.size || scan.entries.some((e) => e.unchanged && !this.links.has(e.id))) this.loadFromStore();
    const keepUnder = scan.unreadableDirs.map((d) => `${d}/`);
    const seen = new Set<string>();
    const puts: { input: ItemInput; links: string[]; isNew: boolean }[] = [];
    const restamp: { id: string; file: FileStampInfo }[] = [];
    for (const scanned of scan.entries) {
      const e = this.idPrefix === NOTE_ID_PREFIX ? scanned : { ...scanned, id: this.noteId(scanned.relPath), parsed: scanned.parsed && { ...scanned.parsed, id: this.noteId(scanned.relPath) } };
      report.scanned++;
      if (e.unchanged) {
        seen.add(e.id);
        continue;
      }
      const prev = stampByPath.has(e.relPath) ? prevOf(e.id) : undefined;
      if (!e.parsed || e.parsed.skipped) {
        report.skipped++;
        // A file that could not be read this time (permissions, a lock) keeps its row; binary/huge ones lose it.
        if (prev && e.problem?.code === 'unreadable') seen.add(e.id);
        continue;
      }
      if (e.relPath === LONGTERM_FILE) continue;
      report.read++;
      seen.add(e.id);
      if (e.parsed.problems.length) report.problems++;
      const input = this.itemFor(e.parsed, rebuild ? undefined : prev, derived(e.relPath), e.file);
      const links = e.parsed.links.map((l) => l.target);
      if (!rebuild && prev && sameContent(prev, input)) {
        // Same note, new stamp (touched, or first seen settled): record it so the next sync only stats the file.
        if (prev.fileMtime !== input.fileMtime || prev.fileSize !== input.fileSize) restamp.push({ id: prev.id, file: e.file! });
        this.links.setNote(prev.id, links);
        continue;
      }
      puts.push({ input, links, isNew: !prev });
    }
    // Normal sync removes rows whose file vanished; rebuild also drops note rows without a path. Rows under a
    // folder that could not be listed stay (as an unreadable file's row does).
    const gone = stamps
      .filter((st) => !seen.has(st.id) && (rebuild || st.path) && !(st.path && keepUnder.some((d) => st.path!.startsWith(d))))
      .map((st) => st.id);
    // The graph first, so every written link resolves against the vault as it is now.
    for (const p of puts) this.links.setNote(p.input.id, p.links);
    for (const id of gone) this.links.removeNote(id);
    const written = new Set(puts.map((p) => p.input.id));
    const relinks = this.relinksNear([...puts.filter((p) => p.isNew).map((p) => p.input.id), ...gone], written);
    try {
      for (let i = 0; i === 0 || i < puts.length; i += CHUNK) {
        const chunk = puts.slice(i, i + CHUNK);
        if (i === 0 && chunk.length === 0 && gone.length === 0 && restamp.length === 0) break;
        await this.store.transaction((tx) => {
          for (const p of chunk) {
            // Rebuild starts each row afresh (its sources, vector bookkeeping) in the same record as the new row.
            if (rebuild && !p.isNew) tx.items.delete(p.input.id);
            this.putNote(tx, p.input, p.links);
          }
          if (i === 0) {
            for (const id of gone) this.deleteNote(tx, id);
            for (const r of restamp) tx.items.patch(r.id, stampFields(r.file));
          }
        });
      }
      await this.writeRelinks(relinks);
    } catch (e) {
      this.graphLoaded = false; // the graph may be ahead of the store: reload it before the next use
      throw e;
    }
    for (const p of puts) {
      if (p.isNew) report.added++;
      else report.updated++;
    }
    report.removed = gone.length;
    this.logger.info(rebuild ? 'vault.rebuild' : 'vault.sync', { ...report, relinked: relinks.length, restamped: restamp.length });
    return report;
  }

  private async syncFileNow(rel: string): Promise<FileSyncResult> {
    if (!isNotePath(rel)) return { id: null, change: 'ignored' };
    this.ensureGraph();
    const id = this.noteId(rel);
    const prev = this.store.items.get(id);
    const file = isHiddenRelPath(rel) ? undefined : await this.readNoteFile(rel);
    const parsedRaw = file && parseNote(rel, file.content, { knownDerived: isDerivedItem(prev) });
    const parsed = parsedRaw && (parsedRaw.id === id ? parsedRaw : { ...parsedRaw, id });
    if (parsed && parsed.skipped) {
      this.logger.warn('vault.skipped', { pathHash: pathHash(rel), code: parsed.problems[0]?.code ?? 'skipped' });
    }
    try {
      if (!parsed || parsed.skipped) {
        // Gone, hidden (quarantined), not a regular file, binary or oversized: not a note row (as in syncAll).
        if (!prev) return { id, change: 'ignored' };
        this.links.removeNote(id);
        const relinks = this.relinksNear([id], new Set([id]));
        await this.store.transaction((tx) => {
          this.deleteNote(tx, id);
          for (const r of relinks) tx.links.setTo(r.fromId, r.target, r.toId);
        });
        this.logger.info('vault.file', { change: 'removed', pathHash: pathHash(rel), relinked: relinks.length });
        return { id, change: 'removed' };
      }
      const input = this.itemFor(parsed, prev, isDerivedItem(prev), file!.stamp);
      const links = parsed.links.map((l) => l.target);
      this.links.setNote(id, links);
      if (prev && sameContent(prev, input)) {
        if (prev.fileMtime !== input.fileMtime || prev.fileSize !== input.fileSize) {
          await this.store.transaction((tx) => tx.items.patch(id, stampFields(file!.stamp)));
        }
        return { id, change: 'unchanged' };
      }
      // A new note can take over links other notes wrote to its name; an update leaves every resolution as it was.
      const relinks = prev ? [] : this.relinksNear([id], new Set([id]));
      await this.store.transaction((tx) => {
        this.putNote(tx, input, links);
        for (const r of relinks) tx.links.setTo(r.fromId, r.target, r.toId);
      });
      const change = prev ? 'updated' : 'added';
      this.logger.info('vault.file', { change, pathHash: pathHash(rel), problems: parsed.problems.length, relinked: relinks.length });
      return { id, change };
    } catch (e) {
      this.graphLoaded = false; // the graph may be ahead of the store: reload it before the next use
      throw e;
    }
  }

  /**
   * Stored links (from notes other than `exclude`) whose resolution differs from the graph's now that the notes
   * `changed` arrived or left. Reads the stored to_ids; call after updating the graph, before writing.
   */
  private relinksNear(changed: string[], exclude: ReadonlySet<string>): Link[] {
    if (changed.length === 0) return [];
    const near = this.links.linksNear(changed).filter((l) => !exclude.has(l.from));
    if (near.length === 0) return [];
    const froms = new Set(near.map((l) => l.from));
    const stored = new Map<string, string | null>();
    const rows = froms.size > RELINK_BULK_READ ? this.store.links.allFrom(this.idPrefix) : [...froms].flatMap((f) => this.store.links.from(f));
    for (const r of rows) if (froms.has(r.fromId)) stored.set(`${r.fromId}\0${r.target}`, r.toId);
    const out: Link[] = [];
    for (const l of near) {
      const key = `${l.from}\0${l.target}`;
      if (!stored.has(key)) continue; // not in the store (yet): nothing to repoint
      const toId = this.links.resolve(l.target, l.from).id ?? null;
      if (stored.get(key) !== toId) out.push({ fromId: l.from, target: l.target, toId });
    }
    return out;
  }

  private async writeRelinks(relinks: Link[]): Promise<void> {
    for (let i = 0; i < relinks.length; i += RELINK_CHUNK) {
      const chunk = relinks.slice(i, i + RELINK_CHUNK);
      await this.store.transaction((tx) => { for (const r of chunk) tx.links.setTo(r.fromId, r.target, r.toId); });
    }
  }

  /**
   * The bytes of a note file, or undefined when it is missing, not a regular file, reached through a
   * symlinked folder (the scanner indexes the real folder instead) or leaves the vault. Oversized files
   * are not read: a 1-byte-too-large stand-in makes parseNote mark them `too_large`.
   */
  private async readNoteFile(rel: string): Promise<{ content: Buffer; stamp: FileStampInfo } | undefined> {
    try {
      const abs = resolveInVault(this.vaultDir, rel);
      const [realRoot, realParent] = await Promise.all([fsp.realpath(this.vaultDir), fsp.realpath(path.dirname(abs))]);
      const parentRel = rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '';
      if (!samePath(realParent, path.join(realRoot, ...parentRel.split('/').filter(Boolean)))) return undefined;
      const st = await fsp.stat(abs);
      if (!st.isFile()) return undefined;
      // Wall-clock time on purpose (not the engine Clock): it is compared with the filesystem's own mtimes.
      const stamp: FileStampInfo = { mtimeMs: st.mtimeMs, size: st.size, settled: Date.now() - st.mtimeMs >= SETTLE_MS };
      if (st.size > MAX_NOTE_BYTES) return { content: Buffer.alloc(MAX_NOTE_BYTES + 1, 0x20), stamp };
      return { content: await fsp.readFile(abs), stamp };
    } catch (e) {
      if (e instanceof MemoryError) return undefined; // symlink leaving the vault: never followed
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR' || code === 'ELOOP') return undefined;
      throw e;
    }
  }

  private itemFor(p: ParsedNote, prev: Item | undefined, knownDerived: boolean, file: FileStampInfo | undefined): ItemInput {
    const now = this.clock.now();
    const contentHash = createHash('sha256')
      .update(JSON.stringify([p.frontmatter, p.body, p.trust, p.kind, p.summary]))
      .digest('hex')
      .slice(0, 32);
    const by = p.origin?.by;
    const modelWritten = knownDerived || (by !== undefined && MODEL_ORIGINS.has(by)) || p.tags.includes(DERIVED_TAG);
    const input: ItemInput = {
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
      ...stampFields(file),
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
    return this.root.decorate ? this.root.decorate(input, p) : input;
  }

  /** Writes the row and its links, each resolved by the graph (which must already hold every current note). */
  private putNote(tx: Tx, input: ItemInput, links: string[]): void {
    tx.items.put(input);
    tx.links.set(input.id, [...new Set(links)].map((target) => ({ target, toId: this.links.resolve(target, input.id).id ?? null })));
  }

  private deleteNote(tx: Tx, id: string): void {
    tx.items.delete(id);
    tx.links.set(id, []);
  }
}

/** The row fields that let the next sync skip reading the file: only a settled stamp is trusted (see SETTLE_MS). */
function stampFields(file: FileStampInfo | undefined): { fileMtime: number | null; fileSize: number | null } {
  return file?.settled ? { fileMtime: file.mtimeMs, fileSize: file.size } : { fileMtime: null, fileSize: null };
}

/** Same note content, trust and path: the row needs no rewrite (its counters and `updated` stay). */
function sameContent(prev: Item, input: ItemInput): boolean {
  return prev.contentHash === input.contentHash && prev.trust === input.trust && prev.path === input.path;
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
