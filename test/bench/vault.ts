// Vault index benchmark: indexing N generated notes from scratch (syncAll into a fresh store),
// a no-change re-sync (what every activation does: stat only), a full rebuild, loading the link graph
// from the store, and the watcher's write-to-indexed latency (VaultWatcher,
// default 75 ms debounce included). Plain function returning a JSON-able object; the CLI
// (`npm run bench -- vault`) wires it up via test/bench/index.ts.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { FixedClock, nullLogger } from '../../src/engine/host';
import { Store } from '../../src/engine/store/store';
import { VaultIndex } from '../../src/engine/vault/vaultIndex';
import { VaultWatcher } from '../../src/engine/vault/vaultWatcher';
import { round, rssMb, summarize } from './harness';

export interface VaultBenchOptions {
  /** Generated notes. Default 10,000 (SPEC's sizing target for a personal vault). */
  notes?: number;
  /** Sequential watched writes timed for latency. Default 50. */
  writes?: number;
  /** Parent folder for the temp vault and store. Default os.tmpdir(). */
  tmp?: string;
  log?: (line: string) => void;
}

const WORDS = 'build deploy esbuild cache token review flaky test store journal vault note recall project memory index tabs spaces lint format'.split(' ');

/** A deterministic note of ~600 bytes: frontmatter on most, a few links and tags, spread over the vault's folders. */
function generatedNote(i: number): { rel: string; text: string } {
  const folder = i % 10 < 5 ? 'semantic' : i % 10 < 7 ? 'procedural' : i % 10 < 9 ? `projects/p${i % 20}` : `project-types/t${i % 3}`;
  const sub = `g${Math.floor(i / 250)}`;
  const words = Array.from({ length: 80 }, (_, k) => WORDS[(i * 7 + k * 13) % WORDS.length]).join(' ');
  const links = [`[[n${(i * 31 + 1) % 10_000}]]`, `[[${folder}/${sub}/n${(i + 1) % 10_000}]]`].join(' ');
  const fm = i % 4 === 0 ? '' : `---\nkind: ${['domain', 'reference', 'project'][i % 3]}\nsummary: Generated note ${i} about ${WORDS[i % WORDS.length]}\ntags: [bench, t${i % 50}]\n---\n`;
  return { rel: `${folder}/${sub}/n${i}.md`, text: `${fm}# Note ${i}\n\n${words}\n\nSee ${links} #topic-${i % 30}\n` };
}

/** The generated files' mtime: an hour ago, as a real vault's notes are (files younger than the scanner's
 *  2 s SETTLE_MS would be re-read on purpose, which an activation on a real vault almost never meets). */
const WRITTEN_AGO_MS = 3_600_000;

function writeVault(vault: string, n: number): number {
  let bytes = 0;
  const old = new Date(Date.now() - WRITTEN_AGO_MS);
  const dirs = new Set<string>();
  for (let i = 0; i < n; i++) {
    const { rel, text } = generatedNote(i);
    const abs = path.join(vault, ...rel.split('/'));
    const dir = path.dirname(abs);
    if (!dirs.has(dir)) { fs.mkdirSync(dir, { recursive: true }); dirs.add(dir); }
    fs.writeFileSync(abs, text);
    fs.utimesSync(abs, old, old);
    bytes += Buffer.byteLength(text);
  }
  return bytes;
}

async function watcherLatency(index: VaultIndex, vault: string, writes: number) {
  const watcher = new VaultWatcher(index);
  try {
    const samples: number[] = [];
    for (let i = -3; i < writes; i++) {
      const rel = `semantic/watched/w${i < 0 ? 'warm' : i % 10}.md`;
      const id = `vt:${rel}`;
      const done = new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => { sub.dispose(); reject(new Error('watcher did not report within 10 s')); }, 10_000);
        const sub = watcher.onDidChange((e) => {
          if (!e.ids.includes(id)) return;
          clearTimeout(timer);
          sub.dispose();
          resolve(performance.now());
        });
      });
      const abs = path.join(vault, ...rel.split('/'));
      fs.mkdirSync(path.dirname(abs), { recursive: true });
      const t0 = performance.now();
      fs.writeFileSync(abs, `---\nsummary: Watched write ${i}\n---\nBody ${i}\n`);
      const t1 = await done;
      await watcher.whenIdle();
      if (i >= 0) samples.push(t1 - t0);
    }
    return { mode: watcher.mode, debounceMs: 75, ...summarize(samples) };
  } finally {
    watcher.dispose();
  }
}

export async function benchVault(opts: VaultBenchOptions = {}): Promise<Record<string, unknown>> {
  const n = opts.notes ?? 10_000;
  const writes = opts.writes ?? 50;
  const log = opts.log ?? (() => {});
  const root = fs.mkdtempSync(path.join(opts.tmp ?? os.tmpdir(), 'bench-vault-'));
  const vault = path.join(root, 'vault');
  const clock = new FixedClock(1_700_000_000_000);
  let store: Store | undefined;
  try {
    log(`generating ${n} notes`);
    const bytes = writeVault(vault, n);
    const rssBefore = rssMb();
    store = await Store.open({ dir: path.join(root, 'store'), clock, logger: nullLogger, watch: false });
    const index = new VaultIndex(vault, store, clock, nullLogger);

    log('indexing from scratch');
    let t = performance.now();
    const first = await index.syncAll();
    const indexMs = performance.now() - t;

    log('no-change re-sync');
    t = performance.now();
    const again = await index.syncAll();
    const resyncMs = performance.now() - t;

    log('rebuild');
    t = performance.now();
    const rebuilt = await index.rebuild();
    const rebuildMs = performance.now() - t;

    const loadIndex = new VaultIndex(vault, store, clock, nullLogger);
    t = performance.now();
    loadIndex.loadFromStore();
    const loadFromStoreMs = performance.now() - t;

    log(`watcher latency over ${writes} writes`);
    const latency = await watcherLatency(index, vault, writes);
    const stats = store.stats();
    return {
      notes: n,
      vaultMb: round(bytes / 1024 / 1024, 2),
      index: { ms: round(indexMs, 1), notesPerSec: Math.round((first.added / indexMs) * 1000), report: first },
      resyncNoChange: { ms: round(resyncMs, 1), updated: again.updated + again.added + again.removed, read: again.read },
      rebuild: { ms: round(rebuildMs, 1), notes: rebuilt.added + rebuilt.updated },
      loadFromStoreMs: round(loadFromStoreMs, 1),
      watcherLatencyMs: latency,
      store: { snapshotMb: round(stats.snapshotBytes / 1024 / 1024, 2), journalMb: round(stats.journalBytes / 1024 / 1024, 2) },
      rssMb: { beforeStore: rssBefore, after: rssMb() },
    };
  } finally {
    await store?.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}
