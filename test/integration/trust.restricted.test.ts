// Restricted Mode in a real VS Code (issue #12): the runner's --restricted pass turns workspace trust on and opens
// its hostile workspace untrusted. Memory still answers from the user's own memory, but takes nothing from the
// workspace — no settings (not even the project id, and no prompt about it), no documents, no git origin — and
// says so in its status.
import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { StatusFigures } from '../../src/vscode/commands/statusCommand';
import { statusLine } from '../../src/vscode/commands/statusCommand';
import { activated, userSettingsLoaded } from './api';

describe('Restricted Mode: memory answers from the user\'s memory and loads nothing from the workspace', function () {
  this.timeout(90_000);

  it('runs untrusted, ignores the workspace\'s settings and says so in status', async () => {
    assert.equal(vscode.workspace.isTrusted, false, 'the runner opened the workspace in Restricted Mode');
    const api = await activated();
    await userSettingsLoaded();
    await api.projectReady();
    const s = api.projectStatus();
    assert.equal(s.restricted, true);
    assert.equal(s.pending, undefined, 'no workspace project id is even offered');
    assert.equal(s.source, 'derived');
    assert.equal(api.settings().localModels.length, 0);
    assert.equal(api.settings().recallIncludeSecrets, false);
    const engine = await api.engine();
    assert.equal(engine.vaultDir, path.resolve(process.env.MEMORY_TEST_VAULT ?? ''));
    const figures = await vscode.commands.executeCommand<StatusFigures>('memory.showStatus');
    assert.match(statusLine(figures), /Restricted Mode: answering from your own memory; nothing is loaded from this workspace/);
    const tip = api.statusBar.item.tooltip;
    assert.match(typeof tip === 'string' ? tip : tip?.value ?? '', /Restricted Mode/);
  });

  it('still recalls the user\'s own memory, but Load Document… loads nothing', async () => {
    const api = await activated();
    const engine = await api.engine();
    const r = await vscode.commands.executeCommand<{ id: string }>('memory.remember', 'The capybara cluster is drained on Sundays');
    assert.ok(r?.id, 'the user can still write to their own memory');
    await engine.index.embedPending();
    const hits = await engine.search('capybara cluster drained', { project: api.project().project });
    assert.ok(hits.some((h) => h.id === r.id), 'the user\'s memory answers');

    const dir = mkdtempSync(path.join(tmpdir(), 'memory-restricted-'));
    const file = path.join(dir, 'doc.md');
    writeFileSync(file, '# Ocelot guide\n\nThe ocelot service restarts nightly.\n');
    const docsBefore = engine.store.items.count();
    const loaded = await vscode.commands.executeCommand('memory.loadDocument', vscode.Uri.file(file));
    assert.equal(loaded, undefined, 'Load Document is refused');
    assert.equal(engine.store.items.count(), docsBefore, 'nothing was loaded');
  });

  it('the workspace\'s model server received nothing and its vault folder does not exist', () => {
    const log = process.env.MEMORY_TEST_HOSTILE_LOG ?? '';
    assert.equal(readFileSync(log, 'utf8'), '');
    assert.ok(!existsSync(process.env.MEMORY_TEST_HOSTILE_VAULT ?? ''));
  });
});
