// The embedder controller (src/vscode/embedderController.ts) with a real engine, the tiny stand-in
// model and, for downloads, a local HTTP server standing in for the model hub: `ask` asks once and
// remembers, `never` never asks, weights on disk load without a question, a download reports progress
// and switches the engine, and a failed download leaves the hash embedder with one message.
import { strict as assert } from 'node:assert';
import { createReadStream, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryEngine } from '../../../src/engine/engine';
import { MemoryLogger } from '../../../src/engine/host';
import { DEFAULT_SETTINGS, type EngineSettings } from '../../../src/engine/settings';
import {
  answerKey, DOWNLOAD_QUESTION, EmbedderController, planForMissing, type AnswerStore, type DownloadAnswer, type EmbedderUi,
} from '../../../src/vscode/embedderController';
import { makeTinyE5, TINY_E5_MODEL_ID } from '../../fixtures/makeTinyE5';

class MapStore implements AnswerStore {
  readonly map = new Map<string, unknown>();
  get<T>(key: string): T | undefined { return this.map.get(key) as T | undefined; }
  async update(key: string, value: unknown): Promise<void> { this.map.set(key, value); }
}

/** A UI that answers the question with `answer` and records what was shown. */
class ScriptedUi implements EmbedderUi {
  readonly questions: string[] = [];
  readonly infos: string[] = [];
  readonly warnings: string[] = [];
  readonly progress: number[] = [];
  setNeverCalls = 0;
  answered: Promise<void> = Promise.resolve();
  constructor(private readonly answer: DownloadAnswer | undefined) {}
  ask(question: string): Promise<DownloadAnswer | undefined> {
    this.questions.push(question);
    return Promise.resolve(this.answer);
  }
  withProgress<T>(_title: string, task: (report: (fraction: number, label: string) => void) => Promise<T>): Promise<T> {
    return task((f) => this.progress.push(f));
  }
  info(m: string): void { this.infos.push(m); }
  warn(m: string): void { this.warnings.push(m); }
  async setNever(): Promise<void> { this.setNeverCalls++; }
}

describe('The embedder controller', function () {
  this.timeout(60_000);
  let dir: string;
  let engine: MemoryEngine;
  let settings: EngineSettings;
  let modelsDir: string;
  let answers: MapStore;
  const logger = new MemoryLogger();

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'embedder-ctl-'));
    modelsDir = join(dir, 'models');
    engine = await MemoryEngine.open({ storeDir: join(dir, 'store'), vaultDir: join(dir, 'vault'), logger });
    settings = { ...DEFAULT_SETTINGS, embedderModel: TINY_E5_MODEL_ID };
    answers = new MapStore();
  });
  afterEach(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const controller = (ui: EmbedderUi) => new EmbedderController({ engine: async () => engine, settings: () => settings, modelsDir, logger, answers, ui });

  /** Evaluates and waits for the evaluation an answer triggers (an event, not a sleep). */
  async function evaluateAndAnswer(ctl: EmbedderController): Promise<void> {
    const next = new Promise<void>((resolve) => { const sub = ctl.onDidChange(() => { sub.dispose(); resolve(); }); });
    const first = await ctl.evaluate();
    if (first?.asked) await new Promise<void>((resolve) => { const sub = ctl.onDidChange(() => { sub.dispose(); resolve(); }); });
    await next;
  }

  it('plans a missing model by mode and remembered answer', () => {
    assert.equal(planForMissing('always', undefined), 'download');
    assert.equal(planForMissing('never', 'download'), 'stay');
    assert.equal(planForMissing('ask', undefined), 'ask');
    assert.equal(planForMissing('ask', 'download'), 'download');
    assert.equal(planForMissing('ask', 'notNow'), 'stay');
    assert.equal(planForMissing('ask', 'never'), 'stay');
  });

  it('uses weights already on disk without asking, whatever the download mode', async () => {
    makeTinyE5(modelsDir);
    for (const mode of ['ask', 'never'] as const) {
      settings = { ...settings, embedderDownload: mode };
      const ui = new ScriptedUi('download');
      const choice = await controller(ui).evaluate();
      assert.equal(choice?.reason, 'model-loaded');
      assert.equal(engine.status().embedder.id, 'tiny-e5-q8-384');
      assert.equal(ui.questions.length, 0);
    }
  });

  it('stays on the hash embedder under "never" with no weights, without asking', async () => {
    settings = { ...settings, embedderDownload: 'never' };
    const ui = new ScriptedUi('download');
    const ctl = controller(ui);
    const choice = await ctl.evaluate();
    assert.equal(choice?.id, 'hash-v1-384');
    assert.equal(choice?.reason, 'model-missing');
    assert.equal(ui.questions.length + ctl.promptsShown, 0);
    assert.equal(engine.status().embedder.reason, 'model-missing');
  });

  it('asks once under "ask" with the SPEC wording, remembers "Not now", and does not ask again', async () => {
    const ui = new ScriptedUi('notNow');
    const ctl = controller(ui);
    await evaluateAndAnswer(ctl);
    assert.deepEqual(ui.questions, [DOWNLOAD_QUESTION]);
    assert.equal(answers.get(answerKey(TINY_E5_MODEL_ID)), 'notNow');
    assert.equal(engine.status().embedder.reason, 'download-declined');
    const again = await controller(ui).evaluate();
    assert.equal(again?.asked, false);
    assert.equal(ui.questions.length, 1, 'a new window (new controller) does not ask again');
  });

  it('writes "never" to the settings when the answer is Never', async () => {
    const ui = new ScriptedUi('never');
    await evaluateAndAnswer(controller(ui));
    assert.equal(ui.setNeverCalls, 1);
    assert.equal(answers.get(answerKey(TINY_E5_MODEL_ID)), 'never');
    assert.equal(engine.status().embedder.id, 'hash-v1-384');
  });

  describe('downloading from a model server', () => {
    let server: Server;
    let hubDir: string;
    let tf: typeof import('@huggingface/transformers');
    let savedHost: string;
    let requests = 0;

    before(async () => {
      hubDir = mkdtempSync(join(tmpdir(), 'embedder-hub-'));
      makeTinyE5(hubDir);
      // The hub's URL layout: /<model>/resolve/<revision>/<file>.
      server = createServer((req, res) => {
        requests++;
        const m = /^\/(.+)\/resolve\/[^/]+\/(.+)$/.exec(decodeURIComponent(req.url ?? ''));
        const file = m ? join(hubDir, m[1]!, m[2]!) : '';
        if (!file || !existsSync(file)) { res.writeHead(404).end(); return; }
        res.writeHead(200, { 'content-length': statSync(file).size, 'content-type': 'application/octet-stream' });
        createReadStream(file).pipe(res);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      tf = await import('@huggingface/transformers');
      savedHost = tf.env.remoteHost;
      tf.env.remoteHost = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    });
    after(async () => {
      tf.env.remoteHost = savedHost;
      tf.env.allowRemoteModels = false;
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(hubDir, { recursive: true, force: true });
    });

    it('downloads on "Download" with progress, keeps the files under the models dir, and switches the engine', async () => {
      const ui = new ScriptedUi('download');
      const ctl = controller(ui);
      await evaluateAndAnswer(ctl);
      assert.equal(ui.questions.length, 1);
      assert.equal(ctl.last?.downloaded, true);
      assert.equal(engine.status().embedder.id, 'tiny-e5-q8-384');
      assert.equal(engine.status().embedder.reason, 'model-loaded');
      assert.ok(ui.progress.length > 0, 'progress was reported');
      assert.ok(existsSync(join(modelsDir, 'test', 'tiny-e5', 'onnx', 'model_quantized.onnx')), 'weights are stored under the models dir');
      assert.equal(ui.infos.length, 1);
      // The next window loads them from disk: no question, no request.
      const before = requests;
      const again = await controller(new ScriptedUi(undefined)).evaluate();
      assert.equal(again?.reason, 'model-loaded');
      assert.equal(requests, before, 'no network once the weights are on disk');
    });

    it('keeps the hash embedder with one message when the download fails, and does not retry in a loop', async () => {
      settings = { ...settings, embedderModel: 'test/not-on-the-server', embedderDownload: 'always' };
      const ui = new ScriptedUi(undefined);
      const ctl = controller(ui);
      const choice = await ctl.evaluate();
      assert.equal(choice?.reason, 'download-failed');
      assert.equal(engine.status().embedder.id, 'hash-v1-384');
      assert.equal(engine.status().embedder.reason, 'download-failed');
      assert.equal(ui.warnings.length, 1);
      assert.equal(ui.questions.length, 0, '"always" does not ask');
      assert.ok(logger.lines.some((l) => l.event === 'embedder.download_failed' && l.fields?.model === 'test/not-on-the-server'));
    });
  });
});
