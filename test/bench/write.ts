// Write-path benchmark (SPEC R-WRITE-1..3, §9): recordTurn acknowledgement p50/p95 (target ≤ 10 ms p95),
// write → searchable latency (keyword: engine.search finds it; vector: the item has its vector, which the
// engine computes ~50 ms after a write), the raw record's compression ratio on LoCoMo text (target ≥ 2.5×,
// with per-message and per-session codec baselines), and derivation throughput (messages/s per flush).
// Real engine on a temp folder, hash embedder (the e5 model's embedding time is the recall bench's business).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { MemoryEngine } from '../../src/engine/engine';
import { FixedClock, nullLogger } from '../../src/engine/host';
import { compressBatch, compressRaw } from '../../src/engine/write/rawCodec';
import type { ImportMessage } from '../../src/engine/write/turnWriter';
import type { BenchContext } from './harness';
import { locomoDataFile, quantiles, round } from './harness';
import { parseLocomoDate } from './locomo';
import { internals } from '../../src/engine/internals';

interface Sample { sample_id: string; speaker_a: string; sessions: { id: number | string; date_time: string; turns: { speaker: string; text: string }[] }[] }

export async function benchWrite(ctx: BenchContext): Promise<Record<string, unknown>> {
  const file = locomoDataFile(ctx.args);
  const samples = JSON.parse(readFileSync(file, 'utf8')) as Sample[];
  const quick = !!ctx.args.quick;
  const out: Record<string, unknown> = { data: path.basename(file), embedder: 'hash' };

  // 1 + 2: acknowledgement and write → searchable, on a store that already holds one LoCoMo sample.
  await withEngine(async (engine) => {
    const sessions = samples[0]!.sessions;
    const ack: number[] = [];
    let n = 0;
    for (const s of sessions) {
      for (let i = 0; i + 1 < s.turns.length; i += 2) {
        const t0 = performance.now();
        await engine.recordTurn({ conversation: `ack-S${s.id}`, user: `[${s.turns[i]!.speaker}] ${s.turns[i]!.text}`, assistant: `[${s.turns[i + 1]!.speaker}] ${s.turns[i + 1]!.text}` });
        ack.push(performance.now() - t0);
        if (quick && ++n >= 100) break;
      }
      if (quick && n >= 100) break;
    }
    out.ackMs = quantiles(ack);
    ctx.log(`ack: ${ack.length} turns, p95 ${out.ackMs && (out.ackMs as { p95: number }).p95} ms`);
    await engine.flush();
    await internals(engine).index.embedPending();

    const keyword: number[] = [];
    const vector: number[] = [];
    const probes = quick ? 10 : 30;
    // Real, distinct LoCoMo lines (the save filter's near-duplicate rule would skip templated probes),
    // each carrying a unique token to search for.
    const lines = (samples[1] ?? samples[0]!).sessions.flatMap((s) => s.turns.map((tr) => `[${tr.speaker}] ${tr.text}`)).filter((x) => x.length >= 60);
    let skipped = 0;
    for (let i = 0; i < probes; i++) {
      const token = `zq${i.toString(36)}probe${Date.now().toString(36)}`;
      const t0 = performance.now();
      const r = await engine.recordTurn({
        conversation: 'probe', user: `${lines[(2 * i) % lines.length]} (${token})`, assistant: lines[(2 * i + 1) % lines.length]!,
      });
      const id = r.ids[0];
      if (!id || r.skipped.some((x) => x.role === 'user')) { skipped++; continue; }
      let kwDone = false, vecDone = false;
      while (!kwDone || !vecDone) {
        if (!kwDone && (await engine.search(token, {})).some((h) => h.id === id)) { keyword.push(performance.now() - t0); kwDone = true; }
        if (!vecDone && internals(engine).index.hasVector(id)) { vector.push(performance.now() - t0); vecDone = true; }
        if (performance.now() - t0 > 10_000) break;
        await new Promise((res) => setTimeout(res, 1));
      }
    }
    out.searchableMs = { keyword: quantiles(keyword), vector: quantiles(vector), probes, skipped };
  });

  // 3 + 4: every LoCoMo sample, one conversation per session, flushed as a session end would.
  let msgs = 0, flushMs = 0, rawBytes = 0, perMessage = 0, perSession = 0;
  const ratios: number[] = [];
  for (const sample of quick ? samples.slice(0, 1) : samples) {
    await withEngine(async (engine) => {
      for (const s of sample.sessions) {
        const at = parseLocomoDate(s.date_time);
        const batch: ImportMessage[] = s.turns.map((tr, i) => ({
          conversation: `${sample.sample_id}-S${s.id}`, role: tr.speaker === sample.speaker_a ? 'user' : 'assistant',
          text: `[${tr.speaker}] ${tr.text}`, at: at + i * 1000, project: sample.sample_id,
        }));
        await engine.importMessages(batch);
        const t0 = performance.now();
        await engine.flush();
        flushMs += performance.now() - t0;
        msgs += batch.length;
        const texts = batch.map((m) => m.text);
        const bytes = texts.reduce((a, t) => a + Buffer.byteLength(t, 'utf8'), 0);
        rawBytes += bytes;
        perMessage += texts.reduce((a, t) => a + compressRaw(t).length, 0);
        perSession += compressBatch(texts).length;
      }
      const rr = engine.status().rawRecord;
      if (rr.ratio !== null) ratios.push(rr.ratio);
    });
    ctx.log(`${sample.sample_id}: raw record ${ratios[ratios.length - 1]}×`);
  }
  out.rawRecord = {
    ratioPerSample: ratios, ratioMin: Math.min(...ratios),
    baselines: { perMessageCodec: round(rawBytes / perMessage, 2), perSessionChunk: round(rawBytes / perSession, 2) },
    rawBytes,
  };
  out.derivation = { messages: msgs, flushSeconds: round(flushMs / 1000, 2), messagesPerSecond: Math.round(msgs / (flushMs / 1000)) };
  return out;
}

async function withEngine(fn: (engine: MemoryEngine) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-write-'));
  const engine = await MemoryEngine.open({
    storeDir: path.join(dir, 'store'), vaultDir: path.join(dir, 'vault'), clock: new FixedClock(Date.parse('2026-01-01T00:00:00Z')),
    logger: nullLogger, syncVault: false,
  });
  try {
    await fn(engine);
  } finally {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  }
}


