// Chooses the engine's embedder from `memory.embedder.*` (SPEC R-RECALL-8, §10): weights already under
// `<globalStorage>/models` are used as they are; a download happens only when the user allowed it
// (R-SEC-4) — `always`, or "Download" on the one-time question under `ask`. Runs in the background,
// one evaluation at a time; any failure leaves the hash embedder in place with a reason, never a loop.
// No runtime `vscode` import: the UI (question, progress, messages) arrives as functions, so unit tests
// drive it with real engines and the tiny stand-in model.
import { HashEmbedder } from '../engine/embed/hashEmbedder';
import { loadEmbedderWithReason, type DownloadProgress } from '../engine/embed/e5Embedder';
import type { MemoryEngine } from '../engine/engine';
import { errorCode } from '../engine/errors';
import { Emitter, type Logger } from '../engine/host';
import type { EmbedderDownload, EngineSettings } from '../engine/settings';

/** SPEC §10's wording for `ask`. */
export const DOWNLOAD_QUESTION = 'Download the local embedding model (~120 MB) for better recall?';
export type DownloadAnswer = 'download' | 'notNow' | 'never';
/** The button labels, in order, for the question. */
export const DOWNLOAD_BUTTONS: Readonly<Record<DownloadAnswer, string>> = Object.freeze({ download: 'Download', notNow: 'Not now', never: 'Never' });

/** globalState key of the remembered answer; per model, so a newly configured model is asked about once. */
export function answerKey(modelId: string): string {
  return `memory.embedder.downloadAnswer:${modelId}`;
}

/** Why the hash embedder stayed, beyond the engine's own reasons (model-missing, model-error, …). */
export type ControllerReason = 'download-declined' | 'download-failed';

export interface EmbedderUi {
  /** Shows the question once; undefined when it was dismissed without an answer. */
  ask(question: string): Promise<DownloadAnswer | undefined>;
  /** Runs a download under a progress notification; `report` takes a 0..1 fraction and a short label. */
  withProgress<T>(title: string, task: (report: (fraction: number, label: string) => void) => Promise<T>): Promise<T>;
  info(message: string): void;
  warn(message: string): void;
  /** "Never": also writes `memory.embedder.download: never` to user settings, so it is visible there. */
  setNever?(): Promise<void>;
}

/** The subset of vscode.Memento (globalState) used to remember the answer. */
export interface AnswerStore {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void> | Promise<void>;
}

export interface EmbedderControllerDeps {
  engine: () => Promise<MemoryEngine>;
  settings: () => EngineSettings;
  /** `<globalStorage>/models` — never inside the extension folder (ARCHITECTURE.md). */
  modelsDir: string;
  logger: Logger;
  answers: AnswerStore;
  ui: EmbedderUi;
}

/** Outcome of one evaluation: what the engine uses now, and why. */
export interface EmbedderChoice {
  id: string;
  model: string;
  mode: EmbedderDownload;
  reason: string;
  /** True when this evaluation put the question on screen (its answer triggers another evaluation). */
  asked: boolean;
  /** True when it fetched files (the user allowed it). */
  downloaded: boolean;
}

/** What `ask` mode does for a model that is not on disk, given the remembered answer. */
export function planForMissing(mode: EmbedderDownload, remembered: DownloadAnswer | undefined): 'download' | 'ask' | 'stay' {
  if (mode === 'always') return 'download';
  if (mode === 'never') return 'stay';
  if (remembered === 'download') return 'download';
  return remembered ? 'stay' : 'ask';
}

export class EmbedderController {
  private running: Promise<EmbedderChoice | undefined> | undefined;
  private again = false;
  private lastChoice: EmbedderChoice | undefined;
  /** Dismissed without an answer in this window: not asked again until the next window. */
  private readonly dismissed = new Set<string>();
  /** Models whose question is on screen now. */
  private readonly asking = new Set<string>();
  private readonly changed = new Emitter<EmbedderChoice>();
  /** Fires after each evaluation (status bar, tests). */
  readonly onDidChange = this.changed.event;
  /** How many times the question was shown in this window. */
  promptsShown = 0;
  private disposed = false;

  constructor(private readonly deps: EmbedderControllerDeps) {}

  get last(): EmbedderChoice | undefined { return this.lastChoice; }
  /** Where weights live: `<globalStorage>/models/<model id>/…`. */
  get modelsDir(): string { return this.deps.modelsDir; }

  /**
   * Re-evaluates (after the engine opens, or when `memory.embedder.*` changes). Calls during a run
   * coalesce into one more run. Never rejects: a failure is logged and answered with undefined.
   */
  evaluate(): Promise<EmbedderChoice | undefined> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    const run = async (): Promise<EmbedderChoice | undefined> => {
      let out: EmbedderChoice | undefined;
      do {
        this.again = false;
        out = await this.evaluateOnce().catch((e: unknown) => {
          this.deps.logger.warn('embedder.evaluate_failed', { error: errorCode(e) });
          return undefined;
        });
      } while (this.again && !this.disposed);
      return out;
    };
    this.running = run().finally(() => { this.running = undefined; });
    return this.running;
  }

  private async evaluateOnce(): Promise<EmbedderChoice | undefined> {
    const { logger, modelsDir } = this.deps;
    const engine = await this.deps.engine();
    const s = this.deps.settings();
    const model = s.embedderModel;
    const mode = s.embedderDownload;
    const started = Date.now();
    // Local files first, in every mode: weights already on disk cost no network.
    const local = await engine.loadEmbedder({ modelsDir, modelId: model, allowDownload: false });
    let choice: EmbedderChoice = { id: local.id, model, mode, reason: local.reason, asked: false, downloaded: false };
    if (local.reason === 'model-missing' && !this.disposed) {
      const remembered = this.deps.answers.get<DownloadAnswer>(answerKey(model));
      const plan = planForMissing(mode, remembered);
      if (plan === 'ask' && !this.dismissed.has(model) && !this.asking.has(model)) {
        // Not awaited: a notification can stay unanswered for hours, and settings changes must not
        // wait behind it. The answer triggers its own evaluation.
        this.asking.add(model);
        this.promptsShown++;
        choice.asked = true;
        void this.deps.ui.ask(DOWNLOAD_QUESTION).then((a) => this.answered(model, a), (e: unknown) => {
          this.asking.delete(model);
          logger.warn('embedder.ask_failed', { error: errorCode(e) });
        });
      } else if (plan === 'stay' && mode === 'ask' && remembered) {
        await engine.useEmbedder(new HashEmbedder(), { reason: 'download-declined', model: null });
        choice = { ...choice, reason: 'download-declined' };
      } else if (plan === 'download') {
        choice = await this.download(engine, choice);
      }
    }
    logger.info('embedder.chosen', { embedder: choice.id, model, mode, reason: choice.reason, ms: Date.now() - started });
    this.lastChoice = choice;
    this.changed.fire(choice);
    return choice;
  }

  private async answered(model: string, answer: DownloadAnswer | undefined): Promise<void> {
    this.asking.delete(model);
    this.deps.logger.info('embedder.asked', { model, answer: answer ?? 'dismissed' });
    if (this.disposed) return;
    if (!answer) {
      this.dismissed.add(model);
      return;
    }
    await this.deps.answers.update(answerKey(model), answer);
    if (answer === 'never') await this.deps.ui.setNever?.().catch((e: unknown) => this.deps.logger.warn('embedder.set_never_failed', { error: errorCode(e) }));
    await this.evaluate();
  }

  private async download(engine: MemoryEngine, choice: EmbedderChoice): Promise<EmbedderChoice> {
    const { logger, modelsDir, ui } = this.deps;
    const model = choice.model;
    logger.info('embedder.download_started', { model });
    const r = await ui.withProgress('Memory: downloading the embedding model', async (report) => {
      const files = new Map<string, { loaded: number; total: number }>();
      const onProgress = (p: DownloadProgress) => {
        files.set(p.file, { loaded: p.loaded, total: p.total });
        let loaded = 0, total = 0;
        for (const f of files.values()) { loaded += f.loaded; total += f.total; }
        report(total > 0 ? loaded / total : 0, `${Math.round(loaded / 1e6)} of ${Math.round(total / 1e6)} MB`);
      };
      return loadEmbedderWithReason({ modelsDir, modelId: model, allowDownload: true, logger, onProgress });
    });
    if (r.reason === 'model-loaded') {
      // The engine re-embeds every item in the background ("X of Y" in the status).
      await engine.useEmbedder(r.embedder, { reason: 'model-loaded', model });
      logger.info('embedder.download_done', { model, embedder: r.embedder.id });
      ui.info(`Memory: the embedding model is ready (${r.embedder.id}); memories are re-indexed in the background.`);
      return { ...choice, id: r.embedder.id, reason: 'model-loaded', downloaded: true };
    }
    await r.embedder.dispose?.().catch(() => undefined);
    await engine.useEmbedder(new HashEmbedder(), { reason: 'download-failed', model: null });
    logger.warn('embedder.download_failed', { model, reason: r.reason });
    ui.warn(`Memory could not download the embedding model (${r.reason}); it keeps using the built-in hash embedder. `
      + 'It will try again when VS Code restarts or the memory.embedder settings change.');
    return { ...choice, id: engine.embedderId, reason: 'download-failed' };
  }

  dispose(): void {
    this.disposed = true;
    this.changed.dispose();
  }
}

/** One line for Show Status and the status bar tooltip: the embedder in use and why. */
export function describeEmbedder(e: { id: string; model: string | null; reason: string; vectors: string }): string {
  const why: Record<string, string> = {
    'model-loaded': 'local model loaded',
    'model-missing': 'model not downloaded',
    'model-error': 'model could not load',
    'runtime-missing': 'model runtime unavailable',
    'download-declined': 'download declined',
    'download-failed': 'download failed',
    disabled: 'model disabled',
    configured: 'configured',
  };
  return `${e.id} (${why[e.reason] ?? e.reason}) · vectors ${e.vectors}`;
}
