import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { findRepeatNote, reinforceNote } from '../../../src/engine/write/noteRepeat';
import { createTestEngine, type TestEngine } from '../engine/builders';
import { internals } from '../../../src/engine/internals';

describe('noteRepeat: one find-repeat/reinforce rule for capture, consolidation and memory_save', function () {
  this.timeout(20_000);
  let te: TestEngine;
  beforeEach(async () => { te = await createTestEngine(); });
  afterEach(async () => { await te.cleanup(); });

  async function note(rel: string, frontmatter: string, body = 'Body.\n'): Promise<string> {
    const abs = path.join(te.vaultDir, rel);
    mkdirSync(path.dirname(abs), { recursive: true });
    writeFileSync(abs, `---\n${frontmatter}\n---\n${body}`);
    return (await internals(te.engine).vault.syncFile(rel))!;
  }

  it('matches in the visible scope by default and only the exact scope with exact: true', async () => {
    const global = await note('semantic/pnpm.md', 'kind: project\nsummary: The build uses pnpm workspaces');
    const store = internals(te.engine).store;
    assert.equal(findRepeatNote(store, 'The build uses pnpm workspaces!', { project: 'alpha' })?.id, global, 'a project sees global notes');
    assert.equal(findRepeatNote(store, 'The build uses pnpm workspaces', { project: 'alpha', exact: true }), undefined, 'but not with exact');
    const mine = await note('projects/alpha/pnpm.md', 'kind: project\nproject: alpha\nsummary: The build uses pnpm workspaces');
    assert.equal(findRepeatNote(store, 'The build uses pnpm workspaces', { project: 'alpha', exact: true })?.id, mine);
    assert.equal(findRepeatNote(store, 'The build uses pnpm workspaces', { project: 'beta', exact: true }), undefined);
    assert.equal(findRepeatNote(store, 'Deployments happen on Fridays', { project: 'alpha' }), undefined, 'a different fact');
    assert.equal(findRepeatNote(store, '  !!  ', {}), undefined, 'nothing to compare');
  });

  it('never matches a quarantined, hidden or archived note', async () => {
    await note('semantic/q.md', 'kind: user\ntrust: quarantined\nsummary: The user likes green tea');
    await note('.trash/t.md', 'kind: user\nsummary: The user likes green tea');
    const archived = await note('semantic/a.md', 'kind: user\nsummary: The user likes green tea');
    await internals(te.engine).store.transaction((tx) => tx.items.patch(archived, { archivedAt: te.clock.now() }));
    assert.equal(findRepeatNote(internals(te.engine).store, 'The user likes green tea', {}), undefined);
  });

  it('adds one masked History bullet, keeps the rest of the file and counts the reinforcement', async () => {
    const id = await note('semantic/key.md', 'kind: reference\nsummary: The deploy key lives in the vault entry ops/deploy', 'Kept as written.\n');
    const item = internals(te.engine).store.items.get(id)!;
    const key = ['sk-', 'abcDEF123456ghiJKL789012mnoPQR'].join('');
    await reinforceNote({ ...internals(te.engine), vaultDir: te.engine.vaultDir, clock: te.engine.clock }, item, `The deploy key ${key} lives in ops/deploy`, 'capture, conversation c1');
    const text = readFileSync(path.join(te.vaultDir, 'semantic/key.md'), 'utf8');
    assert.ok(text.startsWith('---\nkind: reference\nsummary: The deploy key lives in the vault entry ops/deploy\n---\nKept as written.\n'));
    assert.match(text, /## History\n\n- 2026-11-02: seen again \(capture, conversation c1\): The deploy key \[API_KEY\] lives in ops\/deploy\n$/);
    assert.ok(!text.includes(key));
    assert.equal(internals(te.engine).store.items.get(id)!.meta.reinforced, 1);
    await reinforceNote({ ...internals(te.engine), vaultDir: te.engine.vaultDir, clock: te.engine.clock }, internals(te.engine).store.items.get(id)!, 'The deploy key lives in the vault entry ops/deploy', 'consolidation');
    assert.match(readFileSync(path.join(te.vaultDir, 'semantic/key.md'), 'utf8'), /- 2026-11-02: seen again \(consolidation\)\n$/, 'the same wording: no summary repeated');
    assert.equal(internals(te.engine).store.items.get(id)!.meta.reinforced, 2);
  });
});
