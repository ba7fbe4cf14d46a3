// Store benchmark (ARCHITECTURE "Durability"): save-ack latency, compaction time and snapshot size,
// open time (snapshot + replay) and RSS at 10k and 100k items of ~200-char text, loaded under the
// store's own compaction policy (the defaults the engine runs with), with the bytes that load wrote
// (journal, snapshots, and /proc/self/io write_bytes where the OS has it) per logical byte. Plain
// function returning a JSON-able object; the CLI (`npm run bench -- store`) wires it up.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Store } from '../../src/engine/store/store';
import { ioBytes } from './scale';

export interface StoreBenchOptions {
  /** Item counts to measure at. Default [10_000, 100_000]. */
  sizes?: number[];
  /** Sequential single-item saves timed for the ack latency. Default 300. */
  saves?: number;
  /** Journal records left for replay when timing open. Default 1,000. */
  replayRecords?: number;
  /** Parent folder for the temp stores. Default os.tmpdir(). */
  tmp?: string;
  log?: (line: string) => void;
}

const TEXT = 'The quick brown fox jumps over the lazy dog while the build keeps failing on the CI runner because of a flaky test in the store module; remember to pin sql.js and rerun with verbose logs. ';

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
const round = (n: number) => Math.round(n * 100) / 100;
const mb = (b: number) => round(b / 1024 / 1024);

function item(i: number) {
  return {
    id: `fa:bench-${i}`, created: 1_700_000_000_000 + i, text: `${TEXT.slice(0, 190)} #${i}`,
    conversation: `c${i % 500}`, project: i % 3 ? null : 'p1', tags: ['bench'], importance: 0.5,
  };
}

async function ackLatency(dir: string, saves: number) {
  const s = await Store.open({ dir, watch: false });
  const ms: number[] = [];
  for (let i = 0; i < saves; i++) {
    const t = performance.now();
    await s.transaction((tx) => tx.items.put(item(10_000_000 + i)));
    ms.push(performance.now() - t);
  }
  // A burst: 100 saves issued together share flushes (group commit).
  const t = performance.now();
  await Promise.all(Array.from({ length: 100 }, (_, i) => s.transaction((tx) => tx.items.put(item(20_000_000 + i)))));
  const burstMs = performance.now() - t;
  await s.close();
  ms.sort((a, b) => a - b);
  return { saves, p50Ms: round(pct(ms, 50)), p95Ms: round(pct(ms, 95)), maxMs: round(ms[ms.length - 1]), burst100Ms: round(burstMs) };
}

async function atSize(root: string, n: number, replayRecords: number, log: (l: string) => void) {
  const dir = path.join(root, `size ${n}`);
  const s = await Store.open({ dir, watch: false });
  const io0 = ioBytes();
  const t0 = performance.now();
  let logicalBytes = 0;
  for (let i = 0; i < n; i += 1000) {
    await s.transaction((tx) => {
      for (let k = i; k < Math.min(n, i + 1000); k++) {
        const it = item(k);
        logicalBytes += Buffer.byteLength(it.text, 'utf8');
        tx.items.put(it);
      }
    });
  }
  const loadMs = performance.now() - t0;
  const io1 = ioBytes();
  const written = s.stats().written;
  const load = {
    logicalBytes, journalBytes: written.journalBytes, snapshotBytes: written.snapshotBytes, snapshots: written.snapshots,
    diskBytes: io0 && io1 ? io1.writeBytes - io0.writeBytes : null,
    perLogicalByte: round((written.journalBytes + written.snapshotBytes) / logicalBytes),
    snapshotPerJournalByte: round(written.snapshotBytes / Math.max(1, written.journalBytes)),
  };
  log(`store bench: ${n} items loaded in ${Math.round(loadMs)} ms, ${load.perLogicalByte} bytes written per logical byte`);
  await s.transaction((tx) => tx.items.put(item(-1))); // so the timed compaction always has work
  const tc = performance.now();
  await s.compact();
  const compactMs = performance.now() - tc;
  const snapshotBytes = s.stats().snapshotBytes;
  // Leave records in the journal so open has to replay them.
  for (let i = 0; i < replayRecords; i++) await s.transaction((tx) => tx.items.put(item(n + i)));
  const journalBytes = s.stats().journalBytes;
  s.dispose();
  if (global.gc) global.gc();
  const to = performance.now();
  const again = await Store.open({ dir, watch: false });
  const openMs = performance.now() - to;
  const rss = process.memoryUsage().rss;
  const count = again.items.count();
  const report = again.openReport;
  again.dispose();
  return {
    items: n, loadMs: Math.round(loadMs), loadWrites: load, compactMs: Math.round(compactMs), snapshotMB: mb(snapshotBytes),
    openMs: Math.round(openMs), replayedRecords: report.recoveredRecords, journalMB: mb(journalBytes), rssMB: mb(rss), countAfterOpen: count,
  };
}

export async function benchStore(opts: StoreBenchOptions = {}): Promise<object> {
  const log = opts.log ?? (() => undefined);
  const root = fs.mkdtempSync(path.join(opts.tmp ?? os.tmpdir(), 'memory bench store-'));
  try {
    const ack = await ackLatency(path.join(root, 'ack'), opts.saves ?? 300);
    log(`store bench: ack p50 ${ack.p50Ms} ms p95 ${ack.p95Ms} ms`);
    const sizes = [];
    for (const n of opts.sizes ?? [10_000, 100_000]) sizes.push(await atSize(root, n, opts.replayRecords ?? 1000, log));
    return { bench: 'store', node: process.version, platform: `${process.platform}-${process.arch}`, ack, sizes, targets: { ackP95Ms: 10 } };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}
