// Restricted Mode in a real VS Code (issue #12): the runner's --restricted pass turns workspace trust on and opens
// its hostile workspace untrusted. Memory still answers from the user's own memory, but takes nothing from the
// workspace — no settings (not even the project id, and no prompt about it), no documents, no git origin — and
// says so in its status.
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { StatusFigures } from '../../src/vscode/commands/statusCommand';
import { statusLine } from '../../src/vscode/commands/statusCommand';
import { nullLogger } from '../../src/engine/host';
import { createSaveBudget } from '../../src/engine/write/agentSave';
import { TurnRegistry } from '../../src/vscode/chat/turnRegistry';
import { MemoryLoadDocTool } from '../../src/vscode/tools/memoryLoadDocTool';
import { createCallBudget } from '../../src/vscode/tools/registerMemoryTools';
import { activated, userSettingsLoaded } from './api';
import { until } from './waitFor';
import { internals } from '../../src/engine/internals';

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
    await internals(engine).index.embedPending();
    const hits = await engine.search('capybara cluster drained', { project: api.project().project });
    assert.ok(hits.some((h) => h.id === r.id), 'the user\'s memory answers');

    const dir = mkdtempSync(path.join(tmpdir(), 'memory-restricted-'));
    const file = path.join(dir, 'doc.md');
    writeFileSync(file, '# Ocelot guide\n\nThe ocelot service restarts nightly.\n');
    const docsBefore = internals(engine).store.items.count();
    const loaded = await vscode.commands.executeCommand('memory.loadDocument', vscode.Uri.file(file));
    assert.equal(loaded, undefined, 'Load Document is refused');
    assert.equal(internals(engine).store.items.count(), docsBefore, 'nothing was loaded');

    // The agents' memory_load_doc tool refuses too, even for a Markdown file inside the workspace folder.
    const folder = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    writeFileSync(path.join(folder, 'ocelot-runbook.md'), '# Ocelot runbook\n\nThe ocelot service restarts nightly at two.\n');
    const tool = new MemoryLoadDocTool({
      host: api.host, turns: new TurnRegistry(), budget: createCallBudget(() => 10), saveBudget: createSaveBudget(), logger: nullLogger,
      project: () => api.project(), enabled: () => api.settings().enabled,
    });
    const res = await tool.invoke({ input: { path: 'ocelot-runbook.md' }, toolInvocationToken: undefined });
    const text = res.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
    assert.match(text, /Restricted Mode: memory loads no documents from this workspace/);
    assert.equal(internals(engine).store.items.count(), docsBefore, 'the tool loaded nothing either');
  });

  it('the workspace\'s model server received nothing and its vault folder does not exist', () => {
    const log = process.env.MEMORY_TEST_HOSTILE_LOG ?? '';
    assert.equal(readFileSync(log, 'utf8'), '');
    assert.ok(!existsSync(process.env.MEMORY_TEST_HOSTILE_VAULT ?? ''));
  });

  it('starts no vault language server on files inside the workspace, even when the user\'s vault lies there', async () => {
    const api = await activated();
    const ws = vscode.workspace.workspaceFolders?.[0];
    assert.ok(ws);
    const cfg = vscode.workspace.getConfiguration('memory');
    const inside = path.join(ws.uri.fsPath, 'my-notes');
    mkdirSync(path.join(inside, 'semantic'), { recursive: true });
    const note = path.join(inside, 'semantic', 'inside.md');
    writeFileSync(note, '---\nkind: user\nsummary: A note inside the workspace\n---\nSee [[nowhere-note]].\n');
    await cfg.update('vaultPath', inside, vscode.ConfigurationTarget.Global);
    try {
      await until(api.host.onDidOpen, () => api.host.current?.vaultDir === path.resolve(inside), 'the engine on the vault inside the workspace');
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(vscode.Uri.file(note)));
      assert.equal(api.language.current, undefined, 'no language server runs on a workspace file in Restricted Mode');
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await cfg.update('vaultPath', process.env.MEMORY_TEST_VAULT, vscode.ConfigurationTarget.Global);
    }
  });

  it('loads no project vault from the repository (issue #15) and says so in status', async () => {
    const api = await activated();
    const engine = await api.engine();
    await api.projectReady();
    const state = await api.projectVault.refresh();
    assert.deepEqual(state, { state: 'off', reason: 'restricted' });
    assert.equal(engine.project.info(), undefined, 'nothing attached');
    assert.ok(existsSync(path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, '.memory', 'project', 'deploy-days.md')), 'the repository has a project vault');
    assert.equal(internals(engine).store.items.list({ kind: 'note' }).filter((it) => it.id.startsWith('pv:')).length, 0, 'no project note was indexed');
    const hits = await engine.search('quokka service deploys Fridays', { project: api.project().project });
    assert.ok(!hits.some((h) => h.id.startsWith('pv:')), 'the team\'s notes are not recalled');
    assert.equal(api.views.vault.model.some((n) => n.type === 'project'), false, 'no project section in the Vault tree');
    const figures = await vscode.commands.executeCommand<StatusFigures>('memory.showStatus');
    assert.match(statusLine(figures), /project vault not loaded \(Restricted Mode/);
    assert.equal(await vscode.commands.executeCommand('memory.shareWithProject', 'vt:none.md', { confirmed: true }), undefined, 'Share with Project is refused');
  });
});
