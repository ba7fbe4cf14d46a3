// multilingual-e5-small through transformers.js (SPEC R-RECALL-8), and `loadEmbedder`, which falls
// back to the hash embedder when the model cannot load. Weights live under a given models dir,
// never inside the extension folder; nothing is fetched unless download is allowed. Logs carry
// the embedder id, the reason code and counts — never the texts.
import { errorCode } from '../errors';
import type { Logger } from '../host';
import { nullLogger } from '../host';
import { normalizeInPlace, type EmbedKind, type Embedder } from './embedder';
import { HashEmbedder } from './hashEmbedder';

export const E5_DEFAULT_MODEL = 'Xenova/multilingual-e5-small';
export const E5_DTYPE = 'q8'; // TESTING.md: always pass dtype explicitly; q8 → onnx/model_quantized.onnx
const BATCH = 16; // texts per forward pass: bounds the padded tensor for long passages
const MAX_CHARS = 2000; // ~512 tokens, e5's window; longer text is truncated by the tokenizer anyway

/** The slice of transformers.js's feature-extraction pipeline we use. */
interface FeaturePipeline {
  (texts: string[], opts: { pooling: 'mean'; normalize: boolean }): Promise<{ data: Float32Array | number[]; dims: number[] }>;
  dispose?(): Promise<void>;
}

/** Download progress of one model file, from transformers.js's progress_callback (bytes). */
export interface DownloadProgress {
  file: string;
  loaded: number;
  total: number;
}

export interface E5Options {
  modelsDir: string;
  modelId?: string;
  allowDownload?: boolean;
  /** Called while files are fetched (only when download is allowed and a file is missing). */
  onProgress?: (p: DownloadProgress) => void;
}

export class E5Embedder implements Embedder {
  readonly dims: number;
  private constructor(readonly id: string, readonly modelId: string, private readonly pipe: FeaturePipeline, dims: number) {
    this.dims = dims;
  }

  /** Loads the model; throws (ModelFileNotFoundError, onnxruntime errors …) when it cannot. */
  static async load(opts: E5Options): Promise<E5Embedder> {
    const modelId = opts.modelId ?? E5_DEFAULT_MODEL;
    const tf = await importTransformers();
    // transformers.js keeps these globally: the last loader wins, which is fine — one models dir per process.
    tf.env.allowLocalModels = true;
    tf.env.allowRemoteModels = opts.allowDownload === true;
    tf.env.localModelPath = ensureTrailingSep(opts.modelsDir);
    tf.env.cacheDir = opts.modelsDir;
    const pipe = (await tf.pipeline('feature-extraction', modelId, {
      dtype: E5_DTYPE,
      device: 'cpu',
      local_files_only: opts.allowDownload !== true,
      progress_callback: opts.onProgress ? progressAdapter(opts.onProgress) : undefined,
    })) as unknown as FeaturePipeline;
    // Probe once: proves the graph runs and tells the width (384 for e5-small).
    const probe = await pipe(['query: probe'], { pooling: 'mean', normalize: true });
    const dims = probe.dims[probe.dims.length - 1]!;
    return new E5Embedder(embedderIdFor(modelId, dims), modelId, pipe, dims);
  }

  async embed(texts: string[], kind: EmbedKind): Promise<Float32Array[]> {
    const prefix = kind === 'query' ? 'query: ' : 'passage: '; // e5 was trained with these prefixes
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += BATCH) {
      const batch = texts.slice(i, i + BATCH).map((t) => prefix + (t.length > MAX_CHARS ? t.slice(0, MAX_CHARS) : t));
      const res = await this.pipe(batch, { pooling: 'mean', normalize: true });
      const data = res.data instanceof Float32Array ? res.data : Float32Array.from(res.data);
      for (let j = 0; j < batch.length; j++) {
        // Copy out of the batch tensor; re-normalise to absorb float error from q8 weights.
        out.push(normalizeInPlace(data.slice(j * this.dims, (j + 1) * this.dims)));
      }
    }
    return out;
  }

  async dispose(): Promise<void> {
    await this.pipe.dispose?.();
  }
}

/** 'Xenova/multilingual-e5-small' → 'e5-small-q8'; other models keep their last path part. */
export function embedderIdFor(modelId: string, dims: number): string {
  const base = modelId.split('/').pop()!.replace(/^multilingual-/, '').replace(/[^A-Za-z0-9._-]/g, '_');
  return dims === 384 && base === 'e5-small' ? 'e5-small-q8' : `${base}-${E5_DTYPE}-${dims}`;
}

export interface LoadEmbedderOptions {
  modelsDir: string;
  modelId?: string;
  allowDownload?: boolean;
  logger?: Logger;
  /** false: skip e5 entirely (setting "never" with no weights, tests). */
  tryModel?: boolean;
  onProgress?: (p: DownloadProgress) => void;
}

export interface LoadedEmbedder {
  embedder: Embedder;
  /** Why this one: 'model-loaded', 'model-missing', 'model-error', 'runtime-missing', 'disabled'. */
  reason: 'model-loaded' | 'model-missing' | 'model-error' | 'runtime-missing' | 'disabled';
}

/** e5 when it loads, otherwise the hash embedder; reports which and why. Never throws. */
export async function loadEmbedder(opts: LoadEmbedderOptions): Promise<Embedder> {
  return (await loadEmbedderWithReason(opts)).embedder;
}

export async function loadEmbedderWithReason(opts: LoadEmbedderOptions): Promise<LoadedEmbedder> {
  const log = opts.logger ?? nullLogger;
  const modelId = opts.modelId ?? E5_DEFAULT_MODEL;
  let reason: LoadedEmbedder['reason'] = 'disabled';
  if (opts.tryModel !== false) {
    const started = Date.now();
    try {
      const e5 = await E5Embedder.load({ modelsDir: opts.modelsDir, modelId, allowDownload: opts.allowDownload, onProgress: opts.onProgress });
      log.info('embedder.loaded', { embedder: e5.id, model: modelId, dims: e5.dims, ms: Date.now() - started });
      return { embedder: e5, reason: 'model-loaded' };
    } catch (e) {
      reason = classify(e);
      // errorCode gives a class name, never a path or text from the model files.
      log.warn('embedder.fallback', { model: modelId, reason, error: errorCode(e), allowDownload: opts.allowDownload === true });
    }
  }
  const hash = new HashEmbedder();
  log.info('embedder.loaded', { embedder: hash.id, reason });
  return { embedder: hash, reason };
}

function classify(e: unknown): LoadedEmbedder['reason'] {
  const name = e instanceof Error ? e.name : '';
  if (name === 'ModelFileNotFoundError') return 'model-missing';
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') return 'runtime-missing';
  if (e instanceof Error && /local_files_only|allowRemoteModels|not found locally/i.test(e.message)) return 'model-missing';
  return 'model-error';
}

type Transformers = typeof import('@huggingface/transformers');
let transformersPromise: Promise<Transformers> | undefined;

/** Loaded lazily once: transformers.js + onnxruntime cost ~100 ms and memory we may never need. */
function importTransformers(): Promise<Transformers> {
  transformersPromise ??= import('@huggingface/transformers').catch((e: unknown) => {
    transformersPromise = undefined; // a later call may succeed (e.g. after the user installs something)
    throw e;
  });
  return transformersPromise;
}

/** transformers.js reports several event kinds; only per-file byte progress is passed on. */
function progressAdapter(cb: (p: DownloadProgress) => void): (info: unknown) => void {
  return (info) => {
    const i = info as { status?: string; file?: string; loaded?: number; total?: number };
    if (i.status === 'progress' && typeof i.file === 'string' && typeof i.loaded === 'number' && typeof i.total === 'number') {
      cb({ file: i.file, loaded: i.loaded, total: i.total });
    }
  };
}

function ensureTrailingSep(dir: string): string {
  return dir.endsWith('/') || dir.endsWith('\\') ? dir : dir + '/';
}
