// The extension in a real VS Code extension host: it activates, its status command answers with
// the engine card figures, and its activity-bar container shows the Vault view.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { StatusFigures } from '../../src/vscode/commands/statusCommand';
import { activated, userSettingsLoaded } from './api';
import { requestScreenshot, waitForEvent } from './waitFor';

describe('The Memory extension in VS Code', () => {
  it('activates and registers its commands', async () => {
    await activated();
    const commands = await vscode.commands.getCommands(true);
    assert.ok(commands.includes('memory.showStatus'), 'memory.showStatus is registered');
  });

  it('answers Show Status with the engine card figures from settings', async () => {
    await activated();
    await userSettingsLoaded();
    const s = await vscode.commands.executeCommand<StatusFigures>('memory.showStatus');
    assert.equal(typeof s, 'object');
    assert.equal(s.enabled, true);
    assert.equal(typeof s.items, 'number');
    assert.ok(s.embedder === null || typeof s.embedder === 'string');
    assert.equal(typeof s.rawRecord, 'boolean');
    assert.equal(s.includeSecrets, false, 'secrets stay out of recall by default');
    assert.equal(s.recallBudgetChars, 2400);
    // The poison gate's learned stage ships in the bundle and shows in the card (issue #14).
    assert.ok(s.card, `engine card missing (${s.error ?? ''})`);
    assert.equal(s.card.gate.active, true, s.card.gate.error ?? '');
    assert.match(s.card.gate.sha256 ?? '', /^[0-9a-f]{64}$/);
    assert.equal(s.card.gate.detectors.learned, 2, 'both models (gate24: the second one trained on the blind parts)');
    assert.match(s.card.gate.second?.sha256 ?? '', /^[0-9a-f]{64}$/);
    assert.equal(s.card.gate.secondError, null);
    assert.ok(s.card.gate.detectors.rulePatterns > 10);
    const testVault = process.env.MEMORY_TEST_VAULT;
    if (testVault) assert.equal(s.vaultPath, testVault, 'memory.vaultPath from the user settings is honoured');
  });

  it('follows a settings change without a reload', async () => {
    const api = await activated();
    const cfg = vscode.workspace.getConfiguration('memory');
    await cfg.update('recall.topK', 9, vscode.ConfigurationTarget.Global);
    try {
      assert.equal(api.settings().recallTopK, 9);
    } finally {
      await cfg.update('recall.topK', undefined, vscode.ConfigurationTarget.Global);
    }
    assert.equal(api.settings().recallTopK, 5);
  });

  it('shows the Vault view in its own activity-bar container', async () => {
    const api = await activated();
    const vault = api.views.vault;
    const visible = api.views.vaultView.visible
      ? Promise.resolve()
      : waitForEvent(api.views.vaultView.onDidChangeVisibility, 'the Vault view to become visible', 20_000, (e) => e.visible);
    const loaded = vault.rootLoads > 0 ? Promise.resolve() : waitForEvent(vault.onDidLoad, 'the Vault tree to load');
    await vscode.commands.executeCommand('workbench.view.extension.memory');
    await visible;
    await loaded;
    assert.equal(api.views.vaultView.visible, true);
    assert.ok(vault.rootLoads > 0, 'VS Code asked the Vault tree for its items');
    await requestScreenshot('memory-view');
  });
});
