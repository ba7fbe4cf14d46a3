import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isMemoryError } from '../../../src/engine/errors';
import { FixedClock, MemoryLogger } from '../../../src/engine/host';
import type { Item } from '../../../src/engine/store/repositories';
import { Store } from '../../../src/engine/store/store';
import { quarantineNote } from '../../../src/engine/vault/noteWriter';
import { VaultIndex, isDerivedItem } from '../../../src/engine/vault/vaultIndex';

const made: string[] = [];
const open: Store[] = [];

interface Fixture { root: string; vault: string; storeDir: string; store: Store; index: VaultIndex; clock: FixedClock; logger: MemoryLogger }

async function fixture(): Promise<Fixture> {
  // A space in the folder name: every test also covers such paths.
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'vault index-'));
  made.push(root);
  const vault = path.join(root, 'vault');
  const storeDir = path.join(root, 'store');
  fs.mkdirSync(vault);
  const clock = new FixedClock(1_700_000_000_000);
  const logger = new MemoryLogger();
  const store = await Store.open({ dir: storeDir, clock, logger, watch: false });
  open.push(store);
  return { root, vault, storeDir, store, index: new VaultIndex(vault, store, clock, logger), clock, logger };
}

function put(f: Fixture, rel: string, content: string | Buffer): void {
  const p = path.join(f.vault, ...rel.split('/'));
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, content);
}

function rm(f: Fixture, rel: string): void {
  fs.rmSync(path.join(f.vault, ...rel.split('/')), { recursive: true, force: true });
}

function note(f: Fixture, id: string): Item | undefined {
  return f.store.items.get(id);
}

function noteIds(f: Fixture): string[] {
  return f.store.items.list({ kind: 'note', order: 'id' }).map((i) => i.id);
}

function linkTargets(f: Fixture, id: string): string[] {
  return f.store.links.from(id).map((l) => l.target);
}

const FULL_NOTE = [
  '---',
  'kind: domain',
  'summary: Builds run with esbuild',
  'tags: [build, tooling]',
  'project: web-app',
  'trust: ingested',
  '---',
  '# Build',
  'We use esbuild. See [[semantic/Tools]] and [[Other note|alias]]. #ci',
  '',
].join('\n');

afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('VaultIndex', () => {
  describe('bad input', () => {
    it('refuses paths with .., absolute paths, backslashes and NUL, and writes nothing', async () => {
      const f = await fixture();
      put(f, 'semantic/a.md', 'A');
      for (const bad of ['../outside.md', 'semantic/../../outside.md', '/etc/passwd.md', 'semantic\\a.md', 'a\0.md', '', './a.md']) {
        await assert.rejects(f.index.syncFile(bad), (e) => isMemoryError(e, 'E_BAD_ID'), `path ${JSON.stringify(bad)}`);
        await assert.rejects(f.index.syncDir(bad), (e) => isMemoryError(e, 'E_BAD_ID'), `dir ${JSON.stringify(bad)}`);
      }
      assert.deepEqual(noteIds(f), []);
    });

    it('indexes a note with malformed YAML frontmatter and records the problem', async () => {
      const f = await fixture();
      put(f, 'semantic/broken.md', '---\nkind: [unclosed\nsummary: x: y: z\n---\nThe body still counts.\n');
      assert.equal(await f.index.syncFile('semantic/broken.md'), 'vt:semantic/broken.md');
      const it = note(f, 'vt:semantic/broken.md')!;
      assert.equal(it.summary, 'The body still counts.');
      assert.equal(it.subkind, 'reference');
      assert.deepEqual(it.meta.problems, ['malformed_frontmatter']);
      const f2 = await fixture();
      put(f2, 'semantic/broken.md', '---\nkind: [unclosed\n---\nBody\n');
      const report = await f2.index.syncAll();
      assert.equal(report.added, 1);
      assert.equal(report.problems, 1);
      assert.deepEqual(note(f2, 'vt:semantic/broken.md')!.meta.problems, ['malformed_frontmatter']);
    });

    it('skips binary files and files over 1 MB, in syncFile and syncAll, and logs no path', async () => {
      const f = await fixture();
      put(f, 'semantic/bin.md', Buffer.from([0x00, 0x01, 0x02, 0x53, 0x45, 0x43, 0x52, 0x45, 0x54]));
      put(f, 'semantic/huge.md', Buffer.alloc(1024 * 1024 + 1, 0x61));
      put(f, 'semantic/ok.md', 'fine');
      assert.equal(await f.index.syncFile('semantic/bin.md'), null);
      assert.equal(await f.index.syncFile('semantic/huge.md'), null);
      assert.deepEqual(noteIds(f), []);
      const report = await f.index.syncAll();
      assert.equal(report.skipped, 2);
      assert.equal(report.added, 1);
      assert.deepEqual(noteIds(f), ['vt:semantic/ok.md']);
      const logged = JSON.stringify(f.logger.lines);
      assert.ok(!logged.includes('bin.md') && !logged.includes('huge.md') && !logged.includes('SECRET'));
    });

    it('drops the row of a note that turns into a binary file, as a full sync would', async () => {
      const f = await fixture();
      put(f, 'semantic/a.md', 'text');
      await f.index.syncFile('semantic/a.md');
      put(f, 'semantic/a.md', Buffer.from([0, 1, 2, 3]));
      assert.deepEqual(await f.index.syncFileChange('semantic/a.md'), { id: 'vt:semantic/a.md', change: 'removed' });
      assert.deepEqual(noteIds(f), []);
    });

    it('does not follow a symlink that leads outside the vault', async function () {
      const f = await fixture();
      const outside = path.join(f.root, 'outside.md');
      fs.writeFileSync(outside, 'private text outside the vault');
      fs.mkdirSync(path.join(f.vault, 'semantic'));
      try {
        fs.symlinkSync(outside, path.join(f.vault, 'semantic', 'link.md'));
      } catch {
        this.skip(); // no symlinks on this filesystem
      }
      assert.equal(await f.index.syncFile('semantic/link.md'), null);
      await f.index.syncAll();
      assert.deepEqual(noteIds(f), []);
    });
  });

  describe('indexing', () => {
    it('indexes a written note with syncFile: summary, kind, tags, project, trust, secret flag and links', async () => {
      const f = await fixture();
      put(f, 'semantic/Build.md', FULL_NOTE);
      assert.equal(await f.index.syncFile('semantic/Build.md'), 'vt:semantic/Build.md');
      const it = note(f, 'vt:semantic/Build.md')!;
      assert.equal(it.kind, 'note');
      assert.equal(it.subkind, 'domain');
      assert.equal(it.summary, 'Builds run with esbuild');
      assert.deepEqual(it.tags, ['build', 'tooling', 'ci']);
      assert.equal(it.project, 'web-app');
      assert.equal(it.projectType, null);
      assert.equal(it.trust, 'ingested');
      assert.equal(it.secret, false);
      assert.equal(it.path, 'semantic/Build.md');
      assert.equal(it.title, 'Build');
      assert.equal(it.sourceType, 'vault');
      assert.deepEqual(linkTargets(f, it.id), ['Other note', 'semantic/Tools']);
    });

    it('indexes the same fields with syncAll, and the scope from projects/ and project-types/ folders', async () => {
      const f = await fixture();
      put(f, 'semantic/Build.md', FULL_NOTE);
      put(f, 'projects/web-app/Deploy.md', 'Deploys go through the staging cluster first.');
      put(f, 'project-types/vscode-extension/Packaging.md', '---\nkind: feedback\n---\nAlways run vsce ls first.');
      put(f, 'procedural/Secrets.md', '---\ntags: [contains-secrets]\n---\nThe token lives in the keychain.');
      const report = await f.index.syncAll();
      assert.deepEqual(report, { scanned: 4, added: 4, updated: 0, removed: 0, problems: 0, skipped: 0, read: 4 });
      const build = note(f, 'vt:semantic/Build.md')!;
      assert.equal(build.summary, 'Builds run with esbuild');
      assert.equal(build.trust, 'ingested');
      assert.deepEqual(linkTargets(f, build.id), ['Other note', 'semantic/Tools']);
      const deploy = note(f, 'vt:projects/web-app/Deploy.md')!;
      assert.equal(deploy.project, 'web-app');
      assert.equal(deploy.subkind, 'reference');
      assert.equal(deploy.trust, 'owner');
      const packaging = note(f, 'vt:project-types/vscode-extension/Packaging.md')!;
      assert.equal(packaging.project, null);
      assert.equal(packaging.projectType, 'vscode-extension');
      assert.equal(packaging.subkind, 'feedback');
      const secret = note(f, 'vt:procedural/Secrets.md')!;
      assert.equal(secret.secret, true);
      assert.equal(secret.subkind, 'feedback');
      assert.equal(f.store.items.count({ kind: 'note', recallable: true }), 3);
    });

    it('lets frontmatter scope win over the folder', async () => {
      const f = await fixture();
      put(f, 'projects/a/Note.md', '---\nproject: b\n---\nBelongs to b.');
      await f.index.syncAll();
      assert.equal(note(f, 'vt:projects/a/Note.md')!.project, 'b');
    });

    it('indexes names with spaces and non-ASCII characters', async () => {
      const f = await fixture();
      put(f, 'semantic/Über mich – Café.md', 'Ich trinke Kaffee. [[Zweite Notiz]]');
      put(f, 'projects/my proj/naïve 日本語.md', 'Scoped by a folder with a space.');
      assert.equal(await f.index.syncFile('semantic/Über mich – Café.md'), 'vt:semantic/Über mich – Café.md');
      await f.index.syncAll();
      assert.deepEqual(noteIds(f), ['vt:projects/my proj/naïve 日本語.md', 'vt:semantic/Über mich – Café.md']);
      assert.equal(note(f, 'vt:projects/my proj/naïve 日本語.md')!.project, 'my proj');
      assert.equal(note(f, 'vt:semantic/Über mich – Café.md')!.title, 'Über mich – Café');
      assert.deepEqual(linkTargets(f, 'vt:semantic/Über mich – Café.md'), ['Zweite Notiz']);
      rm(f, 'semantic/Über mich – Café.md');
      assert.deepEqual(await f.index.syncFileChange('semantic/Über mich – Café.md'), { id: 'vt:semantic/Über mich – Café.md', change: 'removed' });
    });

    it('updates the row when the summary is edited, and leaves an unchanged note alone', async () => {
      const f = await fixture();
      put(f, 'semantic/a.md', '---\nsummary: First summary\n---\nBody');
      await f.index.syncFile('semantic/a.md');
      const created = note(f, 'vt:semantic/a.md')!.created;
      f.clock.advance(60_000);
      assert.deepEqual(await f.index.syncFileChange('semantic/a.md'), { id: 'vt:semantic/a.md', change: 'unchanged' });
      assert.equal(note(f, 'vt:semantic/a.md')!.updated, created);
      put(f, 'semantic/a.md', '---\nsummary: Second summary\n---\nBody');
      assert.deepEqual(await f.index.syncFileChange('semantic/a.md'), { id: 'vt:semantic/a.md', change: 'updated' });
      const it = note(f, 'vt:semantic/a.md')!;
      assert.equal(it.summary, 'Second summary');
      assert.equal(it.created, created);
      assert.equal(it.updated, created + 60_000);
      put(f, 'semantic/a.md', '---\nsummary: Third summary\n---\nBody');
      assert.deepEqual(await f.index.syncAll(), { scanned: 1, added: 0, updated: 1, removed: 0, problems: 0, skipped: 0, read: 1 });
      assert.equal(note(f, 'vt:semantic/a.md')!.summary, 'Third summary');
      // Written just now: not settled (SETTLE_MS), so read again rather than trusted by its stat.
      assert.deepEqual(await f.index.syncAll(), { scanned: 1, added: 0, updated: 0, removed: 0, problems: 0, skipped: 0, read: 1 });
    });

    it('removes the row and its links when the file is deleted (syncFile and syncAll)', async () => {
      const f = await fixture();
      put(f, 'semantic/a.md', 'A links [[b]]');
      put(f, 'semantic/b.md', 'B links [[a]]');
      await f.index.syncAll();
      assert.deepEqual(f.index.links.backlinks('vt:semantic/b.md'), ['vt:semantic/a.md']);
      rm(f, 'semantic/a.md');
      assert.equal(await f.index.syncFile('semantic/a.md'), null);
      assert.equal(note(f, 'vt:semantic/a.md'), undefined);
      assert.deepEqual(linkTargets(f, 'vt:semantic/a.md'), []);
      assert.deepEqual(f.index.links.backlinks('vt:semantic/b.md'), []);
      rm(f, 'semantic/b.md');
      const report = await f.index.syncAll();
      assert.equal(report.removed, 1);
      assert.deepEqual(noteIds(f), []);
      assert.deepEqual(linkTargets(f, 'vt:semantic/b.md'), []);
    });

    it('re-indexes a whole folder with syncDir: a removed folder loses its notes, a folder moved in gains them', async () => {
      const f = await fixture();
      put(f, 'semantic/topic/a.md', 'A');
      put(f, 'semantic/topic/deep/b.md', 'B');
      put(f, 'semantic/keep.md', 'K');
      await f.index.syncAll();
      fs.renameSync(path.join(f.vault, 'semantic', 'topic'), path.join(f.vault, 'semantic', 'renamed'));
      assert.deepEqual((await f.index.syncDir('semantic/topic')).map((r) => [r.id, r.change]), [
        ['vt:semantic/topic/a.md', 'removed'], ['vt:semantic/topic/deep/b.md', 'removed'],
      ]);
      assert.deepEqual((await f.index.syncDir('semantic/renamed')).map((r) => [r.id, r.change]), [
        ['vt:semantic/renamed/a.md', 'added'], ['vt:semantic/renamed/deep/b.md', 'added'],
      ]);
      assert.deepEqual(noteIds(f), ['vt:semantic/keep.md', 'vt:semantic/renamed/a.md', 'vt:semantic/renamed/deep/b.md']);
    });

    it('builds the link graph of a second index from the store alone', async () => {
      const f = await fixture();
      put(f, 'semantic/a.md', 'A links [[b]]');
      put(f, 'semantic/b.md', 'B');
      await f.index.syncAll();
      const other = new VaultIndex(f.vault, f.store, f.clock, f.logger);
      other.loadFromStore();
      assert.deepEqual(other.links.backlinks('vt:semantic/b.md'), ['vt:semantic/a.md']);
    });

    it('runs overlapping calls one at a time, so a note deleted during a full sync is not brought back', async () => {
      const f = await fixture();
      for (let i = 0; i < 20; i++) put(f, `semantic/n${i}.md`, `Note ${i}`);
      // The scan has read every file when it logs `vault.scan.done`; the store is written after that.
      let one: Promise<string | null> | undefined;
      const logger = new (class extends MemoryLogger {
        override info(event: string, fields?: Record<string, string | number | boolean | null | undefined>) {
          super.info(event, fields);
          if (event === 'vault.scan.done' && !one) {
            rm(f, 'semantic/n7.md');
            one = index.syncFile('semantic/n7.md');
          }
        }
      })();
      const index = new VaultIndex(f.vault, f.store, f.clock, logger);
      await index.syncAll();
      assert.ok(one);
      assert.equal(await one, null);
      assert.equal(note(f, 'vt:semantic/n7.md'), undefined);
      assert.equal(noteIds(f).length, 19);
    });

    it('indexes a symlinked note inside the vault the same way in syncFile and syncAll', async function () {
      const f = await fixture();
      put(f, 'semantic/real.md', 'Real note');
      try {
        fs.symlinkSync(path.join(f.vault, 'semantic', 'real.md'), path.join(f.vault, 'semantic', 'alias.md'));
      } catch {
        this.skip();
      }
      await f.index.syncAll();
      assert.deepEqual(noteIds(f), ['vt:semantic/alias.md', 'vt:semantic/real.md']);
      assert.deepEqual(await f.index.syncFileChange('semantic/alias.md'), { id: 'vt:semantic/alias.md', change: 'unchanged' });
    });
  });

  describe('what is not a note', () => {
    it('never indexes .quarantine/ notes as visible notes, and removes a note moved into quarantine', async () => {
      const f = await fixture();
      put(f, '.quarantine/q1/semantic/old.md', 'Quarantined text');
      put(f, 'semantic/a.md', 'Soon quarantined');
      await f.index.syncAll();
      assert.deepEqual(noteIds(f), ['vt:semantic/a.md']);
      assert.equal(await f.index.syncFile('.quarantine/q1/semantic/old.md'), null);
      await quarantineNote(f.vault, 'semantic/a.md', 'q2');
      assert.equal(await f.index.syncFile('.quarantine/q2/semantic/a.md'), null);
      assert.equal(await f.index.syncFile('semantic/a.md'), null);
      assert.deepEqual(await f.index.syncDir('.quarantine'), []);
      assert.deepEqual(noteIds(f), []);
      await f.index.rebuild();
      assert.deepEqual(noteIds(f), []);
    });

    it('does not index longterm.md or daily logs as notes', async () => {
      const f = await fixture();
      put(f, 'longterm.md', '# Long-term\n- fact');
      put(f, 'logs/2024-05-01.md', '### user\nhello');
      put(f, 'semantic/a.md', 'A');
      put(f, 'semantic/pic.png', Buffer.from([0x89, 0x50, 0x4e, 0x47]));
      assert.deepEqual(await f.index.syncFileChange('longterm.md'), { id: null, change: 'ignored' });
      assert.deepEqual(await f.index.syncFileChange('logs/2024-05-01.md'), { id: null, change: 'ignored' });
      assert.deepEqual(await f.index.syncFileChange('semantic/pic.png'), { id: null, change: 'ignored' });
      assert.deepEqual(await f.index.syncDir('logs'), []);
      await f.index.syncAll();
      assert.deepEqual(noteIds(f), ['vt:semantic/a.md']);
    });
  });

  describe('rebuild and derived notes', () => {
    it('restores every note row after the store folder is deleted (close, rm -rf, reopen, rebuild)', async () => {
      const f = await fixture();
      put(f, 'semantic/Build.md', FULL_NOTE);
      put(f, 'projects/web-app/Deploy.md', 'Deploy [[Build]]');
      put(f, 'procedural/Über Regeln.md', '---\ntags: contains-secrets\n---\nRule');
      put(f, 'semantic/broken.md', '---\nkind: [\n---\nBody');
      await f.index.syncAll();
      const shape = (s: Store) => s.items.list({ kind: 'note', order: 'id' }).map((i) => ({
        id: i.id, subkind: i.subkind, summary: i.summary, tags: i.tags, project: i.project, projectType: i.projectType,
        trust: i.trust, secret: i.secret, path: i.path, problems: i.meta.problems, links: s.links.from(i.id).map((l) => l.target),
      }));
      const before = shape(f.store);
      assert.equal(before.length, 4);
      await f.store.close();
      open.splice(open.indexOf(f.store), 1);
      fs.rmSync(f.storeDir, { recursive: true, force: true });
      const store = await Store.open({ dir: f.storeDir, clock: f.clock, logger: f.logger, watch: false });
      open.push(store);
      assert.equal(store.items.count({ kind: 'note' }), 0);
      const index = new VaultIndex(f.vault, store, f.clock, f.logger);
      const report = await index.rebuild();
      assert.equal(report.added, 4);
      assert.deepEqual(shape(store), before);
      assert.deepEqual(index.links.backlinks('vt:semantic/Build.md'), ['vt:projects/web-app/Deploy.md']);
    });

    it('rebuild replaces rows from the files alone and drops rows whose file is gone', async () => {
      const f = await fixture();
      put(f, 'semantic/a.md', 'A');
      put(f, 'semantic/b.md', 'B');
      await f.index.syncAll();
      await f.store.transaction((tx) => {
        tx.items.patch('vt:semantic/a.md', { summary: 'tampered', accessCount: 9 });
        tx.items.put({ id: 'vt:stray', kind: 'note', created: 1, text: 'row without a file' });
      });
      rm(f, 'semantic/b.md');
      const report = await f.index.rebuild();
      assert.equal(report.removed, 2);
      assert.deepEqual(noteIds(f), ['vt:semantic/a.md']);
      assert.equal(note(f, 'vt:semantic/a.md')!.summary, 'A');
      assert.equal(note(f, 'vt:semantic/a.md')!.accessCount, 0);
    });

    it('keeps a captured note derived after its origin is removed by hand, across syncFile, syncAll and rebuild (R-MEM-4)', async () => {
      const f = await fixture();
      put(f, 'semantic/captured.md', '---\nsummary: User prefers tabs\norigin:\n  by: capture\n  provider: copilot\n  model: gpt-x\n---\nTabs, not spaces.');
      await f.index.syncFile('semantic/captured.md');
      let it = note(f, 'vt:semantic/captured.md')!;
      assert.equal(it.trust, 'derived');
      assert.equal(it.entryPath, 'capture');
      assert.equal(it.provider, 'copilot');
      assert.ok(isDerivedItem(it));
      // The user deletes the origin block (and even claims owner trust): the note stays derived.
      put(f, 'semantic/captured.md', '---\nsummary: User prefers tabs\ntrust: owner\n---\nTabs, not spaces. Edited.');
      await f.index.syncFile('semantic/captured.md');
      it = note(f, 'vt:semantic/captured.md')!;
      assert.equal(it.trust, 'derived');
      assert.ok(isDerivedItem(it));
      put(f, 'semantic/captured.md', '---\nsummary: User prefers tabs\n---\nEdited again.');
      await f.index.syncAll();
      assert.equal(note(f, 'vt:semantic/captured.md')!.trust, 'derived');
      await f.index.rebuild();
      it = note(f, 'vt:semantic/captured.md')!;
      assert.equal(it.trust, 'derived');
      assert.ok(isDerivedItem(it));
      await f.index.syncFile('semantic/captured.md');
      assert.equal(note(f, 'vt:semantic/captured.md')!.trust, 'derived');
    });

    it('treats a hand-written note without origin as owner', async () => {
      const f = await fixture();
      put(f, 'semantic/mine.md', 'My own note');
      await f.index.syncFile('semantic/mine.md');
      const it = note(f, 'vt:semantic/mine.md')!;
      assert.equal(it.trust, 'owner');
      assert.equal(isDerivedItem(it), false);
    });
  });
});
