// "Memory: Consolidate Now" in a real VS Code (SPEC R-MAINT-1): the palette command runs the engine's consolidation
// (here without a background model, so nothing is promoted) and returns its report: an old unused fact is
// archived and no longer found, an expired working block is archived, a recurring fact waits for a model, and a
// second run right after moves nothing. The command gets an argument instead of UI.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { MemoryEngine } from '../../src/engine/engine';
import type { ConsolidationReport } from '../../src/engine/maintain/consolidate';
import { activated, userSettingsLoaded } from './api';
import { internals } from '../../src/engine/internals';

const DAY = 86_400_000;

describe('Consolidate Now in VS Code', () => {
  let engine: MemoryEngine;
  const now = Date.now();

  before(async () => {
    const api = await activated();
    await userSettingsLoaded();
    engine = await api.engine();
    await internals(engine).store.transaction((tx) => {
      tx.items.put({ id: 'fa:consolidate-int-old', kind: 'fact', text: 'archive room: the xylocarpbox sits in hall nine', created: now - 200 * DAY, importance: 0.5, trust: 'derived' });
      tx.items.put({ id: 'fa:consolidate-int-hot', kind: 'fact', text: 'deploy target: the wombatcluster in Oslo', created: now, importance: 0.5, trust: 'derived', accessCount: 3, lastAccessed: now });
      tx.itemSources.add('fa:consolidate-int-hot', ['rw:consolidate-int-1', 'rw:consolidate-int-2', 'rw:consolidate-int-3']);
      tx.items.put({ id: 'wk:consolidate-int', kind: 'working', text: 'scratch block', created: now - 25 * 3_600_000, expiresAt: now - 3_600_000 });
    });
  });

  it('is contributed to the command palette', async () => {
    assert.ok((await vscode.commands.getCommands(true)).includes('memory.consolidateNow'));
  });

  it('reports what moved, archives what it demoted, and a second run moves nothing', async () => {
    const r = await vscode.commands.executeCommand<ConsolidationReport>('memory.consolidateNow', { noModel: true, silent: true });
    assert.ok(r, 'the command returns the report');
    assert.ok(r.demotedIds.includes('fa:consolidate-int-old'), 'the old unused fact is archived');
    assert.ok(r.expiredIds.includes('wk:consolidate-int'), 'the expired working block is archived');
    assert.equal(r.expiredAction, 'archived');
    assert.equal(r.promoted, 0);
    assert.ok(r.skippedNoModel >= 1, 'the recurring fact waits for a background model');
    const old = internals(engine).store.items.get('fa:consolidate-int-old')!;
    assert.equal(old.originalId, 'fa:consolidate-int-old');
    assert.equal(old.created, now - 200 * DAY);
    assert.ok(!(await engine.search('xylocarpbox', {}, 10)).some((h) => h.id === 'fa:consolidate-int-old'), 'never recalled again');
    assert.equal(internals(engine).store.items.get('fa:consolidate-int-hot')!.archivedAt, null);

    const again = await vscode.commands.executeCommand<ConsolidationReport>('memory.consolidateNow', { noModel: true, silent: true });
    assert.deepEqual([again?.promoted, again?.demoted, again?.expired], [0, 0, 0]);
  });
});
