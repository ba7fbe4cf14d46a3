// VaultIndex re-sync behaviour: the (mtime, size) shortcut, links.to_id kept in the store (backlinks), and the
// guard that keeps note rows when the vault folder cannot be seen. Real files in temp dirs, real sql.js store.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FixedClock, MemoryLogger } from '../../../src/engine/host';
import { Store } from '../../../src/engine/store/store';
import { VaultIndex } from '../../../src/engine/vault/vaultIndex';

const made: string[] = [];
const open: Store[] = [];

interface Fixture { root: string; vault: string; store: Store; index: VaultIndex; clock: FixedClock; logger: MemoryLogger }

async function fixture(): Promise<Fixture> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'vault sync-'));
  made.push(root);
  const vault = path.join(root, 'vault');
  fs.mkdirSync(vault);
  const clock = new FixedClock(1_700_000_000_000);
  const logger = new MemoryLogger();
  const store = await Store.open({ dir: path.join(root, 'store'), clock, logger, watch: false });
  open.push(store);
  return { root, vault, store, index: new VaultIndex(vault, store, clock, logger), clock, logger };
}

const abs = (f: Fixture, rel: string) => path.join(f.vault, ...rel.split('/'));

/** An hour ago (s): well past the scanner's 2 s settle window, as a real vault's notes are. */
const HOUR_AGO = () => Math.floor(Date.now() / 1000) - 3600;

/** Writes a note; `mtime` (seconds) backdates it so its stamp is trusted by the next sync. */
function put(f: Fixture, rel: string, content: string, mtime?: number): void {
  const p = abs(f, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, content);
  if (mtime !== undefined) fs.utimesSync(p, mtime, mtime);
}

function noteIds(f: Fixture): string[] {
  return f.store.items.list({ kind: 'note', order: 'id' }).map((i) => i.id);
}

function toIds(f: Fixture, from: string): Record<string, string | null> {
  return Object.fromEntries(f.store.links.from(from).map((l) => [l.target, l.toId]));
}

function backlinks(f: Fixture, to: string): string[] {
  return f.store.links.backlinks(to).map((l) => l.fromId);
}

function lastSyncLog(f: Fixture): Record<string, unknown> {
  const line = [...f.logger.lines].reverse().find((l) => l.event === 'vault.sync' || l.event === 'vault.rebuild');
  return (line?.fields ?? {}) as Record<string, unknown>;
}

afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  for (const d of made.splice(0)) {
    // An unreadable folder left by a test must not stop the clean-up.
    try { fs.chmodSync(path.join(d, 'vault', 'semantic', 'locked'), 0o755); } catch { /* not there */ }
    fs.rmSync(d, { recursive: true, force: true });
  }
});

describe('VaultIndex re-sync', () => {
  describe('missing vault folder', () => {
    it('refuses to sync a deleted vault folder: keeps every row, logs vault.missing and says missing', async () => {
      const f = await fixture();
      put(f, 'semantic/a.md', 'A links [[b]]');
      put(f, 'semantic/b.md', 'B');
      await f.index.syncAll();
      fs.rmSync(f.vault, { recursive: true, force: true });
      const report = await f.index.syncAll();
      assert.equal(report.missing, true);
      assert.equal(report.removed, 0);
      assert.deepEqual(noteIds(f), ['vt:semantic/a.md', 'vt:semantic/b.md']);
      assert.deepEqual(backlinks(f, 'vt:semantic/b.md'), ['vt:semantic/a.md']);
      assert.ok(f.logger.lines.some((l) => l.event === 'vault.missing' && l.level === 'warn'));
      // Rebuild refuses too: it would otherwise drop every vault-derived row.
      assert.equal((await f.index.rebuild()).missing, true);
      assert.deepEqual(noteIds(f), ['vt:semantic/a.md', 'vt:semantic/b.md']);
    });

    it('treats an empty vault root as missing while the store has notes (an unmounted drive\'s mount point)', async () => {
      const f = await fixture();
      put(f, 'semantic/a.md', 'A');
      await f.index.syncAll();
      fs.rmSync(f.vault, { recursive: true, force: true });
      fs.mkdirSync(f.vault);
      assert.equal((await f.index.syncAll()).missing, true);
      assert.deepEqual(noteIds(f), ['vt:semantic/a.md']);
    });

    it('treats a vault path that is a file as missing', async () => {
      const f = await fixture();
      put(f, 'semantic/a.md', 'A');
      await f.index.syncAll();
      fs.rmSync(f.vault, { recursive: true, force: true });
      fs.writeFileSync(f.vault, 'not a folder');
      assert.equal((await f.index.syncAll()).missing, true);
      assert.deepEqual(noteIds(f), ['vt:semantic/a.md']);
    });

    it('syncs normally again once the folder is back, and still removes a note deleted from a present vault', async () => {
      const f = await fixture();
      put(f, 'semantic/a.md', 'A');
      put(f, 'semantic/b.md', 'B');
      await f.index.syncAll();
      const moved = path.join(f.root, 'away');
      fs.renameSync(f.vault, moved);
      assert.equal((await f.index.syncAll()).missing, true);
      fs.renameSync(moved, f.vault);
      fs.rmSync(abs(f, 'semantic/b.md'));
      const report = await f.index.syncAll();
      assert.equal(report.missing, undefined);
      assert.equal(report.removed, 1);
      assert.deepEqual(noteIds(f), ['vt:semantic/a.md']);
    });

    it('indexes nothing and reports missing for a vault that does not exist yet, with an empty store', async () => {
      const f = await fixture();
      fs.rmSync(f.vault, { recursive: true, force: true });
      const report = await f.index.syncAll();
      assert.equal(report.missing, true);
      assert.deepEqual(noteIds(f), []);
      // An empty, present vault with an empty store is simply empty.
      fs.mkdirSync(f.vault);
      assert.equal((await f.index.syncAll()).missing, undefined);
    });

    it('keeps the rows of a folder it cannot list', async function () {
      if (process.platform === 'win32' || process.getuid?.() === 0) this.skip(); // chmod does not lock out root or Windows users
      const f = await fixture();
      put(f, 'semantic/locked/a.md', 'A');
      put(f, 'semantic/open.md', 'O');
      await f.index.syncAll();
      fs.chmodSync(abs(f, 'semantic/locked'), 0o000);
      const report = await f.index.syncAll();
      assert.equal(report.removed, 0);
      assert.deepEqual(noteIds(f), ['vt:semantic/locked/a.md', 'vt:semantic/open.md']);
    });
  });

  describe('mtime and size shortcut', () => {
    it('stores the stamp of a settled file and only stats it at the next sync: the row stays as it was', async () => {
      const f = await fixture();
      const t = HOUR_AGO();
      put(f, 'semantic/a.md', '---\nsummary: Alpha\n---\nBody', t);
      put(f, 'semantic/b.md', 'Bravo', t);
      assert.equal((await f.index.syncAll()).read, 2);
      const before = f.store.items.get('vt:semantic/a.md')!;
      const st = fs.statSync(abs(f, 'semantic/a.md'));
      assert.equal(before.fileMtime, st.mtimeMs);
      assert.equal(before.fileSize, st.size);
      f.clock.advance(60_000);
      const report = await f.index.syncAll();
      assert.equal(report.read, 0);
      assert.equal(report.scanned, 2);
      assert.equal(report.added + report.updated + report.removed, 0);
      assert.deepEqual(f.store.items.get('vt:semantic/a.md'), before);
    });

    it('does not re-read a file whose mtime and size are unchanged, but rebuild always reads it', async () => {
      const f = await fixture();
      const t = HOUR_AGO();
      put(f, 'semantic/a.md', '---\nsummary: Alpha\n---\nBody', t);
      await f.index.syncAll();
      // Same size, mtime put back: only a read could see this edit (the watcher sees it in practice).
      put(f, 'semantic/a.md', '---\nsummary: Omega\n---\nBody', t);
      assert.equal((await f.index.syncAll()).read, 0);
      assert.equal(f.store.items.get('vt:semantic/a.md')!.summary, 'Alpha');
      assert.equal((await f.index.rebuild()).read, 1);
      assert.equal(f.store.items.get('vt:semantic/a.md')!.summary, 'Omega');
    });

    it('re-indexes a file whose size or mtime changed', async () => {
      const f = await fixture();
      const t = HOUR_AGO();
      put(f, 'semantic/a.md', '---\nsummary: Alpha\n---\nBody', t);
      put(f, 'semantic/b.md', '---\nsummary: Bravo\n---\nBody', t);
      await f.index.syncAll();
      f.clock.advance(60_000);
      put(f, 'semantic/a.md', '---\nsummary: Alpha, longer now\n---\nBody', t); // new size, same mtime
      put(f, 'semantic/b.md', '---\nsummary: Brave\n---\nBody', t + 10); // same size, new mtime
      const report = await f.index.syncAll();
      assert.equal(report.read, 2);
      assert.equal(report.updated, 2);
      assert.equal(f.store.items.get('vt:semantic/a.md')!.summary, 'Alpha, longer now');
      assert.equal(f.store.items.get('vt:semantic/b.md')!.summary, 'Brave');
      assert.equal(f.store.items.get('vt:semantic/b.md')!.fileMtime, fs.statSync(abs(f, 'semantic/b.md')).mtimeMs);
    });

    it('records a new stamp for a touched file without rewriting the note, then only stats it', async () => {
      const f = await fixture();
      const t = HOUR_AGO();
      put(f, 'semantic/a.md', 'Alpha', t);
      await f.index.syncAll();
      const before = f.store.items.get('vt:semantic/a.md')!;
      f.clock.advance(60_000);
      fs.utimesSync(abs(f, 'semantic/a.md'), t + 100, t + 100);
      const report = await f.index.syncAll();
      assert.equal(report.read, 1);
      assert.equal(report.updated, 0);
      const after = f.store.items.get('vt:semantic/a.md')!;
      assert.equal(after.updated, before.updated);
      assert.equal(after.fileMtime, fs.statSync(abs(f, 'semantic/a.md')).mtimeMs);
      assert.equal((await f.index.syncAll()).read, 0);
    });

    it('does not trust the stamp of a file written moments ago: it is read again at the next sync', async () => {
      const f = await fixture();
      put(f, 'semantic/a.md', 'Alpha');
      await f.index.syncAll();
      assert.equal(f.store.items.get('vt:semantic/a.md')!.fileMtime, null);
      assert.equal((await f.index.syncAll()).read, 1);
    });

    it('stores the stamp from syncFile too, so the next full sync only stats the file', async () => {
      const f = await fixture();
      put(f, 'semantic/a.md', 'Alpha', HOUR_AGO());
      await f.index.syncFile('semantic/a.md');
      assert.notEqual(f.store.items.get('vt:semantic/a.md')!.fileMtime, null);
      assert.equal((await f.index.syncAll()).read, 0);
    });

    it('gives a fresh index whose sync read nothing the link graph of every note, from the store', async () => {
      const f = await fixture();
      const t = HOUR_AGO();
      put(f, 'semantic/a.md', 'A links [[b]]', t);
      put(f, 'semantic/b.md', 'B', t);
      await f.index.syncAll();
      const other = new VaultIndex(f.vault, f.store, f.clock, f.logger);
      assert.equal((await other.syncAll()).read, 0);
      assert.deepEqual(other.links.backlinks('vt:semantic/b.md'), ['vt:semantic/a.md']);
    });
  });

  describe('backlinks in the store', () => {
    it('resolves every link\'s to_id when notes are indexed', async () => {
      const f = await fixture();
      put(f, 'semantic/a.md', 'A links [[b]], [[semantic/c]] and [[nowhere]]');
      put(f, 'semantic/b.md', 'B links [[a]]');
      put(f, 'semantic/c.md', 'C');
      await f.index.syncAll();
      assert.deepEqual(toIds(f, 'vt:semantic/a.md'), { b: 'vt:semantic/b.md', 'semantic/c': 'vt:semantic/c.md', nowhere: null });
      assert.deepEqual(backlinks(f, 'vt:semantic/b.md'), ['vt:semantic/a.md']);
      assert.deepEqual(backlinks(f, 'vt:semantic/a.md'), ['vt:semantic/b.md']);
      assert.deepEqual(f.store.links.unresolved().map((l) => l.target), ['nowhere']);
    });

    it('repoints links written before their target existed when it arrives, and unresolves them when it goes (syncFile)', async () => {
      const f = await fixture();
      put(f, 'semantic/a.md', 'A links [[b]]');
      await f.index.syncFile('semantic/a.md');
      assert.deepEqual(toIds(f, 'vt:semantic/a.md'), { b: null });
      put(f, 'semantic/b.md', 'B');
      assert.equal(await f.index.syncFile('semantic/b.md'), 'vt:semantic/b.md');
      assert.deepEqual(backlinks(f, 'vt:semantic/b.md'), ['vt:semantic/a.md']);
      fs.rmSync(abs(f, 'semantic/b.md'));
      assert.equal(await f.index.syncFile('semantic/b.md'), null);
      assert.deepEqual(toIds(f, 'vt:semantic/a.md'), { b: null });
      assert.deepEqual(backlinks(f, 'vt:semantic/b.md'), []);
    });

    it('re-resolves only the links near notes that arrived or left, and follows the same-folder preference (syncAll)', async () => {
      const f = await fixture();
      put(f, 'projects/p1/a.md', 'A links [[plan]] and [[other]]');
      put(f, 'projects/p2/plan.md', 'Plan two');
      put(f, 'semantic/other.md', 'Other');
      await f.index.syncAll();
      assert.deepEqual(toIds(f, 'vt:projects/p1/a.md'), { plan: 'vt:projects/p2/plan.md', other: 'vt:semantic/other.md' });
      // An unrelated note: no link changes resolution.
      put(f, 'semantic/unrelated.md', 'U');
      await f.index.syncAll();
      assert.equal(lastSyncLog(f).relinked, 0);
      // A plan in a's own folder wins over the one elsewhere.
      put(f, 'projects/p1/plan.md', 'Plan one');
      await f.index.syncAll();
      assert.equal(lastSyncLog(f).relinked, 1);
      assert.deepEqual(toIds(f, 'vt:projects/p1/a.md'), { plan: 'vt:projects/p1/plan.md', other: 'vt:semantic/other.md' });
      assert.deepEqual(backlinks(f, 'vt:projects/p2/plan.md'), []);
      // It goes again: the link falls back to the other plan.
      fs.rmSync(abs(f, 'projects/p1/plan.md'));
      await f.index.syncAll();
      assert.deepEqual(backlinks(f, 'vt:projects/p2/plan.md'), ['vt:projects/p1/a.md']);
    });

    it('keeps to_id right across rebuild and in a second index that loaded the graph from the store', async () => {
      const f = await fixture();
      put(f, 'semantic/a.md', 'A links [[b]]');
      await f.index.syncAll();
      const other = new VaultIndex(f.vault, f.store, f.clock, f.logger);
      other.loadFromStore();
      put(f, 'semantic/b.md', 'B');
      await other.syncFile('semantic/b.md');
      assert.deepEqual(backlinks(f, 'vt:semantic/b.md'), ['vt:semantic/a.md']);
      await f.index.rebuild();
      assert.deepEqual(backlinks(f, 'vt:semantic/b.md'), ['vt:semantic/a.md']);
      assert.deepEqual(f.index.links.backlinks('vt:semantic/b.md'), ['vt:semantic/a.md']);
    });
  });
});
