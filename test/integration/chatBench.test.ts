// Benchmark (not a test; runs only with MEMORY_BENCH=1): the @memory participant's added latency before the
// model's first token — recall, block building and masking for a remote model — at 10k items, measured in the
// real extension host. Prints one `[bench] {...}` JSON line. No assertion on the figures (TESTING: no timing
// assertions in tests).
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { MemoryEngine } from '../../src/engine/engine';
import { nullLogger } from '../../src/engine/host';
import { buildTurnPrompt } from '../../src/vscode/chat/memoryParticipant';
import { EXTENSION_ID } from './api';
import { internals } from '../../src/engine/internals';

const ITEMS = 10_000;
const RUNS = 60;
const TOPICS = ['pnpm workspaces', 'Node 22', 'the checkout page', 'PostgreSQL migrations', 'the release train', 'dark mode', 'the CI cache',
  'Kubernetes ingress', 'the invoice PDF', 'feature flags', 'the onboarding flow', 'rate limiting', 'the search index', 'SSO login', 'unit tests'];

(process.env.MEMORY_BENCH === '1' ? describe : describe.skip)('Bench: @memory latency before the first token', function () {
  this.timeout(600_000);
  let dir: string;
  after(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

  it(`measures recall + block building at ${ITEMS} items`, async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'memory-bench-'));
    const wasmPath = path.join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, 'dist', 'sql-wasm.wasm');
    const engine = await MemoryEngine.open({ storeDir: path.join(dir, 'store'), vaultDir: path.join(dir, 'vault'), wasmPath, logger: nullLogger });
    try {
      const t0 = Date.now();
      const at = Date.now() - 90 * 86_400_000;
      const msgs = [];
      for (let i = 0; i < ITEMS; i++) {
        const a = TOPICS[i % TOPICS.length], b = TOPICS[(i * 7 + 3) % TOPICS.length];
        msgs.push({
          conversation: `bench-${Math.floor(i / 50)}`, role: (i % 2 ? 'assistant' : 'user') as 'user' | 'assistant', at: at + i * 60_000, project: 'shop',
          text: `Message ${i}: we discussed ${a} and how it affects ${b}; decision ${i % 13} was to keep ${a} as it is until the next review.`,
        });
      }
      await engine.importMessages(msgs);
      await engine.flush();
      const fill = Date.now() - t0;
      const items = internals(engine).store.items.count();
      assert.ok(items >= ITEMS);
      const times: number[] = [];
      let withBlock = 0;
      let hits = 0;
      for (let r = 0; r < RUNS; r++) {
        const q = `what did we decide about ${TOPICS[r % TOPICS.length]} for ${TOPICS[(r + 5) % TOPICS.length]}?`;
        const s = process.hrtime.bigint();
        const p = await buildTurnPrompt(engine, {
          prompt: q, history: [], conversation: `bench-new-${r}`, project: { project: 'shop' }, window: 128_000, canUseTools: true, local: false, logger: nullLogger,
        });
        times.push(Number(process.hrtime.bigint() - s) / 1e6);
        assert.ok(p.messages.length >= 2);
        if (p.block) withBlock++;
        hits += p.recall.hits.length;
      }
      const warm = times.slice(5).sort((a, b) => a - b);
      const pct = (p: number) => Math.round(warm[Math.min(warm.length - 1, Math.floor(p * warm.length))] * 10) / 10;
      console.log(`[bench] ${JSON.stringify({ bench: 'participant_pre_first_token_ms', items, runs: warm.length, p50: pct(0.5), p95: pct(0.95), max: pct(1), first: Math.round(times[0]), withBlock, avgHits: Math.round((hits / RUNS) * 10) / 10, fillMs: fill, embedder: internals(engine).index.embedderId })}`);
    } finally {
      await engine.close();
    }
  });
});
