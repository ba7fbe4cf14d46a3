// The embedder in the real extension host, with dist/'s bundled WASM runtime: `never` without weights
// stays on the hash embedder without a question; the tiny stand-in model placed under
// `<globalStorage>/models` and named in `memory.embedder.model` is picked up without a reload, Show
// Status names it with its reason, search still answers, and every vector is re-embedded ("X of Y").
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { EmbedderChoice } from '../../src/vscode/embedderController';
import type { StatusFigures } from '../../src/vscode/commands/statusCommand';
import { makeTinyE5, TINY_E5_MODEL_ID } from '../fixtures/makeTinyE5';
import { activated, userSettingsLoaded } from './api';
import { waitForEvent } from './waitFor';

describe('The embedder in VS Code', () => {
  const cfg = () => vscode.workspace.getConfiguration('memory');

  after(async () => {
    // Back to the defaults for the tests that follow (hash embedder, nothing on screen).
    await cfg().update('embedder.model', undefined, vscode.ConfigurationTarget.Global);
    await cfg().update('embedder.download', undefined, vscode.ConfigurationTarget.Global);
  });

  /** Changes `memory.embedder.*` and waits for the evaluation of exactly that model. */
  async function configure(model: string, download: 'ask' | 'always' | 'never'): Promise<EmbedderChoice> {
    const api = await activated();
    const done = waitForEvent(api.embedder.onDidChange, `the embedder evaluation for ${model}`, 45_000,
      (c) => c.model === model && c.mode === download);
    await cfg().update('embedder.download', download, vscode.ConfigurationTarget.Global);
    await cfg().update('embedder.model', model, vscode.ConfigurationTarget.Global);
    return done;
  }

  it('stays on the hash embedder under "never" without weights, and asks nothing', async () => {
    const api = await activated();
    await userSettingsLoaded();
    const asked = api.embedder.promptsShown;
    const choice = await configure('test/not-downloaded', 'never');
    assert.equal(choice.id, 'hash-v1-384');
    assert.equal(choice.reason, 'model-missing');
    assert.equal(api.embedder.promptsShown, asked, 'no question under "never"');
    const engine = await api.engine();
    assert.equal(engine.status().embedder.reason, 'model-missing');
  });

  it('switches to the e5 model placed under globalStorage/models, re-embeds everything, and still finds memories', async () => {
    const api = await activated();
    await userSettingsLoaded();
    const engine = await api.engine();
    await engine.remember({ text: 'The upload service times out: httpx ReadTimeout after 30 seconds' });
    await engine.remember({ text: 'Python code style: the project uses ruff and black' });
    makeTinyE5(api.embedder.modelsDir, TINY_E5_MODEL_ID);

    const choice = await configure(TINY_E5_MODEL_ID, 'ask');
    assert.equal(choice.reason, 'model-loaded');
    assert.equal(choice.asked, false, 'weights on disk need no question');
    assert.equal(choice.id, 'tiny-e5-q8-384');

    await engine.whenVectorsReady();
    const card = engine.status().embedder;
    assert.equal(card.id, 'tiny-e5-q8-384');
    assert.equal(card.reason, 'model-loaded');
    const [done, total] = card.vectors.split(' of ').map(Number);
    assert.ok(total! >= 2, `items to embed: ${card.vectors}`);
    assert.equal(done, total, `every vector re-embedded: ${card.vectors}`);

    const figures = await vscode.commands.executeCommand<StatusFigures>('memory.showStatus');
    assert.equal(figures.embedder, 'tiny-e5-q8-384');
    assert.equal(figures.embedderReason, 'model-loaded');

    const hits = await engine.search('httpx ReadTimeout upload');
    assert.ok(hits.length > 0, 'search answers with the e5 embedder in use');
  });
});
