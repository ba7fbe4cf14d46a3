// Entry point bundled by bundle.test.ts exactly like build.mjs bundles dist/:
// proves transformers.js + the WASM runtime load at run time from a bundle, and from where.
import { loadEmbedderWithReason } from '../../../src/engine/embed/e5Embedder';
import { makeTinyE5, TINY_E5_MODEL_ID } from '../../fixtures/makeTinyE5';

async function main(): Promise<void> {
  const modelsDir = process.argv[2]!;
  makeTinyE5(modelsDir);
  const r = await loadEmbedderWithReason({ modelsDir, modelId: TINY_E5_MODEL_ID });
  const [v] = await r.embedder.embed(['hello from the bundle'], 'query');
  const tf = await import('@huggingface/transformers');
  const wasmPaths = (tf.env.backends.onnx as { wasm?: { wasmPaths?: unknown } }).wasm?.wasmPaths;
  let nativeRuntime = true;
  try { require.resolve('onnxruntime-node'); } catch { nativeRuntime = false; }
  process.stdout.write(JSON.stringify({ reason: r.reason, id: r.embedder.id, dims: v!.length, wasmPaths, nativeRuntime }) + '\n');
}

main().catch((e: unknown) => {
  process.stdout.write(JSON.stringify({ error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) }) + '\n');
  process.exitCode = 1;
});
