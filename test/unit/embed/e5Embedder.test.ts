import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dot } from '../../../src/engine/embed/embedder';
import { E5Embedder, embedderIdFor, loadEmbedder, loadEmbedderWithReason } from '../../../src/engine/embed/e5Embedder';
import { MemoryLogger } from '../../../src/engine/host';
import { makeTinyE5, TINY_E5_MODEL_ID } from '../../fixtures/makeTinyE5';

describe('e5Embedder with a generated tiny stand-in model', function () {
  this.timeout(60_000); // first import of transformers.js + onnxruntime
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'tiny-e5-'));
    makeTinyE5(dir);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('loads through the real transformers.js path and returns normalised 384-dim vectors', async () => {
    const log = new MemoryLogger();
    const r = await loadEmbedderWithReason({ modelsDir: dir, modelId: TINY_E5_MODEL_ID, logger: log });
    assert.equal(r.reason, 'model-loaded');
    assert.ok(r.embedder instanceof E5Embedder);
    assert.equal(r.embedder.dims, 384);
    const texts = ['httpx ReadTimeout on upload', 'la configuración del servidor', ...Array.from({ length: 20 }, (_, i) => `note ${i}`)];
    const vecs = await r.embedder.embed(texts, 'passage');
    assert.equal(vecs.length, texts.length, 'batches are stitched in order');
    for (const v of vecs) {
      assert.equal(v.length, 384);
      assert.ok(Math.abs(dot(v, v) - 1) < 1e-4);
    }
    const [again] = await r.embedder.embed([texts[0]!], 'passage');
    assert.ok(dot(again!, vecs[0]!) > 0.9999, 'same text, same vector');
    const [asQuery] = await r.embedder.embed([texts[0]!], 'query');
    assert.ok(dot(asQuery!, vecs[0]!) < 0.9999, 'query: and passage: prefixes differ');
    assert.ok(log.lines.some((l) => l.event === 'embedder.loaded' && l.fields?.embedder === r.embedder.id));
  });

  it('falls back to the hash embedder when the model is missing, and says why without text', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'no-model-'));
    try {
      const log = new MemoryLogger();
      const r = await loadEmbedderWithReason({ modelsDir: empty, logger: log });
      assert.equal(r.reason, 'model-missing');
      assert.equal(r.embedder.id, 'hash-v1-384');
      const warn = log.lines.find((l) => l.event === 'embedder.fallback');
      assert.equal(warn?.fields?.reason, 'model-missing');
      assert.equal(warn?.fields?.error, 'ModelFileNotFoundError');
      assert.equal((await loadEmbedder({ modelsDir: empty })).id, 'hash-v1-384');
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('falls back when the model file is damaged', async () => {
    const broken = mkdtempSync(join(tmpdir(), 'broken-e5-'));
    try {
      const modelDir = makeTinyE5(broken, 'test/broken');
      unlinkSync(join(modelDir, 'onnx', 'model_quantized.onnx'));
      const r = await loadEmbedderWithReason({ modelsDir: broken, modelId: 'test/broken' });
      assert.equal(r.embedder.id, 'hash-v1-384');
      assert.notEqual(r.reason, 'model-loaded');
    } finally {
      rmSync(broken, { recursive: true, force: true });
    }
  });

  it('skips the model when told to', async () => {
    const r = await loadEmbedderWithReason({ modelsDir: dir, modelId: TINY_E5_MODEL_ID, tryModel: false });
    assert.equal(r.reason, 'disabled');
    assert.equal(r.embedder.id, 'hash-v1-384');
  });

  it('names the real model e5-small-q8', () => {
    assert.equal(embedderIdFor('Xenova/multilingual-e5-small', 384), 'e5-small-q8');
  });
});
