// Vault language support in a real VS Code (R-UI-6): the language server starts for a vault note and
// gives a broken-link diagnostic, `[[` completion of note names, go to definition of a wikilink and a
// hover on a memory id — through VS Code's own provider commands. Event-driven: no sleeps.
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { MemoryEngine } from '../../src/engine/engine';
import type { MemoryExtensionApi } from '../../src/extension';
import { activated, userSettingsLoaded } from './api';
import { until } from './waitFor';
import { internals } from '../../src/engine/internals';

describe('Vault language support in VS Code', () => {
  let api: MemoryExtensionApi;
  let engine: MemoryEngine;
  let vault: string;
  let source: vscode.Uri;
  let doc: vscode.TextDocument;
  const TARGET_ID = 'vt:semantic/lang-target.md';

  const write = (rel: string, content: string) => {
    const abs = path.join(vault, ...rel.split('/'));
    mkdirSync(path.dirname(abs), { recursive: true });
    writeFileSync(abs, content);
    return abs;
  };
  const at = (needle: string, delta = 0) => doc.positionAt(doc.getText().indexOf(needle) + delta);

  before(async () => {
    api = await activated();
    await userSettingsLoaded();
    engine = await api.engine();
    vault = engine.vaultDir;
    write('semantic/lang-target.md', '---\nkind: user\nsummary: Keeps tabs at two spaces\n---\n# Tabs\n\nTwo spaces.\n');
    await until(engine.onDidChange, () => internals(engine).store.items.get(TARGET_ID), `${TARGET_ID} indexed`);
    source = vscode.Uri.file(write('semantic/lang-source.md',
      `See [[lang-target]] and [[lang-nowhere]].\nCited as ${TARGET_ID} here.\nMore: [[\n`));
    doc = await vscode.workspace.openTextDocument(source);
    await vscode.window.showTextDocument(doc);
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('shows a diagnostic for a wikilink to no note, and none for a link that resolves', async () => {
    const started = Date.now();
    const broken = await until(vscode.languages.onDidChangeDiagnostics, () => {
      const d = vscode.languages.getDiagnostics(source);
      const nowhere = d.filter((x) => x.code === 'broken_link' && x.message.includes('lang-nowhere'));
      const target = d.filter((x) => x.code === 'broken_link' && x.message.includes('"lang-target"'));
      return nowhere.length === 1 && target.length === 0 ? nowhere[0] : undefined;
    }, 'the broken-link diagnostic');
    console.log(`    (note opened → diagnostic: ${Date.now() - started} ms; the server may already run for an earlier vault note)`);
    assert.equal(broken.source, 'memory');
    assert.deepEqual([broken.range.start.line, broken.range.start.character], [0, 24]);
  });

  it('completes note names after [[', async () => {
    const list = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', source, new vscode.Position(2, 8));
    const labels = list.items.map((i) => (typeof i.label === 'string' ? i.label : i.label.label));
    assert.ok(labels.includes('lang-target'), `lang-target among ${labels.length} completions`);
    assert.ok(!labels.includes('lang-source'), 'the note itself is not offered');
  });

  it('goes to the note file from a wikilink', async () => {
    const defs = await vscode.commands.executeCommand<(vscode.Location | vscode.LocationLink)[]>('vscode.executeDefinitionProvider', source, at('[[lang-target', 4));
    assert.equal(defs.length, 1);
    const uri = 'targetUri' in defs[0] ? defs[0].targetUri : defs[0].uri;
    assert.equal(path.resolve(uri.fsPath), path.resolve(vault, 'semantic', 'lang-target.md'));
  });

  it('shows kind, trust and summary when hovering a memory id', async () => {
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', source, at(TARGET_ID, 5));
    const text = hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n');
    assert.match(text, /Keeps tabs at two spaces/);
    assert.match(text, /note \\\(user\\\) · trust owner/);
  });

  it('restarts for the new folder when memory.vaultPath changes', async () => {
    const other = mkdtempSync(path.join(tmpdir(), 'memory-lang-vault-'));
    const cfg = () => vscode.workspace.getConfiguration('memory');
    const original = cfg().get<string>('vaultPath');
    try {
      writeFileSync(path.join(other, 'only-here.md'), 'Links to [[lang-target]], which this vault lacks.\n');
      await cfg().update('vaultPath', other, vscode.ConfigurationTarget.Global);
      const uri = vscode.Uri.file(path.join(other, 'only-here.md'));
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
      await until(vscode.languages.onDidChangeDiagnostics,
        () => vscode.languages.getDiagnostics(uri).some((d) => d.code === 'broken_link' && d.message.includes('lang-target')),
        'a broken-link diagnostic in the other vault');
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await cfg().update('vaultPath', original, vscode.ConfigurationTarget.Global);
      engine = await api.engine();
      rmSync(other, { recursive: true, force: true });
    }
    assert.equal(engine.vaultDir, vault, 'back on the test vault');
  });
});
