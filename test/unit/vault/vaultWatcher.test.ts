import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isMemoryError } from '../../../src/engine/errors';
import { FixedClock, MemoryLogger } from '../../../src/engine/host';
import { Store } from '../../../src/engine/store/store';
import { writeNote } from '../../../src/engine/vault/noteWriter';
import { VaultIndex } from '../../../src/engine/vault/vaultIndex';
import { VaultWatcher, type VaultChangeEvent, type VaultWatchMode } from '../../../src/engine/vault/vaultWatcher';

const made: string[] = [];
const cleanups: (() => Promise<void> | void)[] = [];

interface Fixture { vault: string; store: Store; index: VaultIndex; watcher: VaultWatcher; logger: MemoryLogger }

async function fixture(mode: VaultWatchMode, prepare?: (vault: string) => void): Promise<Fixture> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'vault watch-'));
  made.push(root);
  const vault = path.join(root, 'vault');
  fs.mkdirSync(vault);
  prepare?.(vault);
  const clock = new FixedClock(1_700_000_000_000);
  const logger = new MemoryLogger();
  const store = await Store.open({ dir: path.join(root, 'store'), clock, logger, watch: false });
  const index = new VaultIndex(vault, store, clock, logger);
  await index.syncAll();
  const watcher = new VaultWatcher(index, { mode, logger });
  cleanups.push(async () => { watcher.dispose(); await store.close(); });
  return { vault, store, index, watcher, logger };
}

function abs(f: Fixture, rel: string): string {
  return path.join(f.vault, ...rel.split('/'));
}

function put(f: Fixture | string, rel: string, content: string): void {
  const p = typeof f === 'string' ? path.join(f, ...rel.split('/')) : abs(f, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, content);
}

/**
 * Resolves with every event up to the one after which all `ids` have been reported; rejects after
 * `timeoutMs` (a safety net for a broken watcher, not a timing assertion). Subscribe before acting.
 */
function changes(f: Fixture, ids: string[], timeoutMs = 10_000): Promise<VaultChangeEvent[]> {
  return new Promise((resolve, reject) => {
    const want = new Set(ids);
    const seen: VaultChangeEvent[] = [];
    const timer = setTimeout(() => { sub.dispose(); reject(new Error(`no change event for ${[...want].join(', ')} within ${timeoutMs} ms`)); }, timeoutMs);
    const sub = f.watcher.onDidChange((e) => {
      seen.push(e);
      for (const id of e.ids) want.delete(id);
      if (want.size === 0) { clearTimeout(timer); sub.dispose(); resolve(seen); }
    });
  });
}

afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('VaultWatcher', () => {
  it('refuses a vault folder that does not exist', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'vault watch-'));
    made.push(root);
    const store = await Store.open({ dir: path.join(root, 'store'), watch: false });
    cleanups.push(() => store.close());
    const index = new VaultIndex(path.join(root, 'missing'), store, new FixedClock(0), new MemoryLogger());
    assert.throws(() => new VaultWatcher(index), (e) => isMemoryError(e, 'E_NOT_FOUND'));
  });

  it('uses node\'s recursive fs.watch by default on this platform', async () => {
    const f = await fixture('recursive');
    assert.equal(f.watcher.mode, 'recursive');
    const g = new VaultWatcher(f.index);
    cleanups.push(() => g.dispose());
    assert.equal(g.mode, 'recursive');
  });

  for (const mode of ['recursive', 'perDirectory'] as const) {
    describe(`in ${mode} mode`, () => {
      it('indexes a new note and reports its id', async () => {
        const f = await fixture(mode);
        const got = changes(f, ['vt:semantic/new note.md']);
        put(f, 'semantic/new note.md', '---\nsummary: Fresh\n---\nBody');
        await got;
        assert.equal(f.store.items.get('vt:semantic/new note.md')?.summary, 'Fresh');
      });

      it('re-indexes an edited note', async () => {
        const f = await fixture(mode, (v) => put(v, 'semantic/a.md', '---\nsummary: Old\n---\nBody'));
        assert.equal(f.store.items.get('vt:semantic/a.md')?.summary, 'Old');
        const got = changes(f, ['vt:semantic/a.md']);
        put(f, 'semantic/a.md', '---\nsummary: New\n---\nBody');
        await got;
        assert.equal(f.store.items.get('vt:semantic/a.md')?.summary, 'New');
      });

      it('handles a rename: the old id is removed and the new one added', async () => {
        const f = await fixture(mode, (v) => put(v, 'semantic/old name.md', 'Renamed note [[b]]'));
        const got = changes(f, ['vt:semantic/old name.md', 'vt:semantic/Neuer Name é.md']);
        fs.renameSync(abs(f, 'semantic/old name.md'), abs(f, 'semantic/Neuer Name é.md'));
        await got;
        assert.equal(f.store.items.get('vt:semantic/old name.md'), undefined);
        assert.deepEqual(f.store.links.from('vt:semantic/old name.md'), []);
        assert.equal(f.store.items.get('vt:semantic/Neuer Name é.md')?.summary, 'Renamed note [[b]]');
      });

      it('removes the row of a deleted note', async () => {
        const f = await fixture(mode, (v) => put(v, 'semantic/a.md', 'A'));
        const got = changes(f, ['vt:semantic/a.md']);
        fs.rmSync(abs(f, 'semantic/a.md'));
        await got;
        assert.equal(f.store.items.get('vt:semantic/a.md'), undefined);
      });

      it('removes every note of a deleted folder', async () => {
        const f = await fixture(mode, (v) => {
          put(v, 'projects/p1/a.md', 'A');
          put(v, 'projects/p1/deep/b.md', 'B');
          put(v, 'projects/p1/deep/c.md', 'C');
          put(v, 'semantic/keep.md', 'K');
        });
        const got = changes(f, ['vt:projects/p1/a.md', 'vt:projects/p1/deep/b.md', 'vt:projects/p1/deep/c.md']);
        fs.rmSync(abs(f, 'projects/p1'), { recursive: true });
        await got;
        assert.deepEqual(f.store.items.list({ kind: 'note' }).map((i) => i.id), ['vt:semantic/keep.md']);
      });

      it('indexes the notes of a folder moved into the vault, and removes those of a renamed folder', async () => {
        const f = await fixture(mode, (v) => put(v, 'semantic/topic/a.md', 'A'));
        const outside = path.join(path.dirname(f.vault), 'incoming');
        put(outside, 'sub/x.md', 'X');
        put(outside, 'y.md', 'Y');
        let got = changes(f, ['vt:semantic/incoming/sub/x.md', 'vt:semantic/incoming/y.md']);
        fs.renameSync(outside, abs(f, 'semantic/incoming'));
        await got;
        got = changes(f, ['vt:semantic/topic/a.md', 'vt:semantic/renamed/a.md']);
        fs.renameSync(abs(f, 'semantic/topic'), abs(f, 'semantic/renamed'));
        await got;
        await f.watcher.whenIdle();
        assert.deepEqual(f.store.items.list({ kind: 'note', order: 'id' }).map((i) => i.id), [
          'vt:semantic/incoming/sub/x.md', 'vt:semantic/incoming/y.md', 'vt:semantic/renamed/a.md',
        ]);
      });

      it('sees notes written into a folder created a moment before', async () => {
        const f = await fixture(mode);
        const got = changes(f, ['vt:procedural/new/deeper/r.md', 'vt:procedural/new/s.md']);
        put(f, 'procedural/new/deeper/r.md', 'R');
        put(f, 'procedural/new/s.md', 'S');
        await got;
        assert.equal(f.store.items.get('vt:procedural/new/s.md')?.subkind, 'feedback');
      });

      it('ignores logs/, .quarantine/, longterm.md and the note writer\'s temp files', async () => {
        const f = await fixture(mode);
        const events: VaultChangeEvent[] = [];
        f.watcher.onDidChange((e) => events.push(e));
        put(f, 'logs/2024-05-01.md', '### user\nhello');
        put(f, '.quarantine/q1/semantic/x.md', 'Quarantined');
        put(f, 'longterm.md', '# Long-term');
        put(f, 'semantic/.a.md.0123456789ab.tmp', 'half-written');
        const got = changes(f, ['vt:semantic/written.md']);
        await writeNote(f.vault, 'semantic/written.md', { frontmatter: { summary: 'Via the writer' }, body: 'Body' });
        await got;
        await f.watcher.whenIdle();
        assert.deepEqual(events.flatMap((e) => e.ids), ['vt:semantic/written.md']);
        assert.deepEqual(f.store.items.list({ kind: 'note' }).map((i) => i.id), ['vt:semantic/written.md']);
      });

      it('coalesces a burst of writes to one note into its final content', async () => {
        const f = await fixture(mode);
        const got = changes(f, ['vt:semantic/burst.md']);
        for (let i = 1; i <= 20; i++) put(f, 'semantic/burst.md', `---\nsummary: Version ${i}\n---\nBody`);
        await got;
        await f.watcher.whenIdle();
        assert.equal(f.store.items.get('vt:semantic/burst.md')?.summary, 'Version 20');
      });
    });
  }

  it('stops reporting after dispose and settles whenIdle', async () => {
    const f = await fixture('recursive');
    const events: VaultChangeEvent[] = [];
    f.watcher.onDidChange((e) => events.push(e));
    put(f, 'semantic/a.md', 'A');
    f.watcher.dispose();
    await f.watcher.whenIdle();
    assert.ok(f.watcher.isDisposed);
    assert.deepEqual(events, []);
  });
});
