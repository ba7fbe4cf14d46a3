// The status card (R-UI-6, `vscode-memory status`, the dashboard's engine card), its cheap headline
// (the status bar) and the engine's footprint (the health check). Ids, counts and sizes only.
import { gateModelStatus, type GateStatus } from '../write/poisonGate';
import { readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { Clock } from '../host';
import type { RecallIndex } from '../recall/recallIndex';
import type { IndexKeeper } from '../recall/indexKeeper';
import type { EngineSettings } from '../settings';
import type { OpenReport, Store, StoreStats } from '../store/store';
import { healthLevel, type EngineFootprint, type EngineHealth } from './health';

export interface EngineStatus {
  enabled: boolean;
  storeDir: string;
  vaultDir: string;
  /** The embedder in use, why it was chosen, and its vectors: "X of Y" items that should have one. */
  embedder: { id: string; model: string | null; dims: number; reason: string; vectors: string };
  items: Record<string, number>;
  recallable: { summaries: number; facts: number };
  vectors: { summaries: string; facts: string; total: number; pending: number; partitions: number; lastRun: string | null };
  invalidatedFacts: number;
  conversations: number;
  bufferedMessages: number;
  skips: Record<string, number>;
  saved: Record<string, number>;
  rawRecord: { enabled: boolean; blobs: number; rawBytes: number; storedBytes: number; ratio: number | null };
  switches: { captureToolResults: boolean; captureThinking: boolean; includeSecrets: boolean };
  recallBudgetChars: number;
  store: { seq: number; snapshotBytes: number; journalBytes: number; written: StoreStats['written'] };
  health: EngineHealth;
  openReport: OpenReport;
  /** The poison gate: learned stage on/off, weights hash and version, thresholds, detector counts. */
  gate: GateStatus;
}

export type EngineHeadline = Pick<EngineStatus, 'enabled' | 'embedder' | 'health'> & { items: number };

/** What the card is read from (the engine's parts). */
export interface StatusSources {
  store: Store;
  vaultDir: string;
  keeper: Pick<IndexKeeper, 'embedderInfo' | 'indexFile'>;
  /** The recall index, caught up. */
  index(): RecallIndex;
  settings(): EngineSettings;
  clock: Clock;
}

export class StatusReader {
  constructor(private readonly src: StatusSources) {}

  /**
   * The cheap part of the card — no scans of facts, summaries or the raw record — for surfaces that
   * refresh after every write burst (the status bar).
   */
  headline(): EngineHeadline {
    const s = this.src.settings();
    const index = this.src.index();
    const footprint = this.footprint();
    const bytes = footprint.memoryBytes;
    return {
      enabled: s.enabled,
      items: this.src.store.items.count(),
      embedder: {
        id: index.embedderId, model: this.src.keeper.embedderInfo.model, dims: index.embedderInUse.dims, reason: this.src.keeper.embedderInfo.reason,
        vectors: `${index.vectorCount} of ${index.embeddableCount}`,
      },
      health: { level: healthLevel(bytes, s.healthWarnBytes, s.healthCritBytes), bytes, warnBytes: s.healthWarnBytes, critBytes: s.healthCritBytes, footprint },
    };
  }

  private footprintCache: { key: string; value: EngineFootprint } | undefined;

  /** The engine's own footprint (see EngineFootprint); recomputed only when the store or the index changed. */
  footprint(): EngineFootprint {
    const index = this.src.index();
    // The database's memory: sql.js's WASM heap (page cache, working memory) plus what of the file it keeps in memory.
    const heap = this.src.store.heapBytes + this.src.store.fileMemoryBytes;
    const key = `${this.src.store.seq}:${index.version}:${index.vectorVersion}:${index.vectorCount}:${index.pendingVectorCount}:${heap}`;
    if (this.footprintCache?.key === key) return this.footprintCache.value;
    const f = index.footprint();
    const size = (file: string): number => { try { return statSync(file).size; } catch { return 0; } };
    const st = this.src.store.stats();
    let vectorBytes = 0;
    try {
      for (const name of readdirSync(path.join(this.src.store.dir, 'vectors'))) vectorBytes += size(path.join(this.src.store.dir, 'vectors', name));
    } catch { /* no vectors saved yet */ }
    const disk = { snapshotBytes: st.snapshotBytes, journalBytes: st.journalBytes, indexBytes: size(this.src.keeper.indexFile), vectorBytes };
    const cacheBytes = f.metadataBytes + f.pendingBytes;
    const value: EngineFootprint = {
      memoryBytes: heap + f.keywordBytes + f.vectorBytes + cacheBytes,
      databaseBytes: heap, keywordIndexBytes: f.keywordBytes, vectorIndexBytes: f.vectorBytes, cacheBytes,
      diskBytes: disk.snapshotBytes + disk.journalBytes + disk.indexBytes + disk.vectorBytes, disk,
    };
    this.footprintCache = { key, value };
    return value;
  }

  /** The full card (one SQL pass over ids and kinds; no item decoded). */
  status(): EngineStatus {
    const s = this.src.settings();
    const index = this.src.index();
    const head = this.headline();
    const counts = this.src.store.items.countByKind();
    const now = this.src.clock.now();
    let recallSummaries = 0, recallFacts = 0, vecSummaries = 0, vecFacts = 0;
    // Ids and kinds only (one JSON row from SQLite): no item is decoded, so the card stays cheap at any size.
    for (const it of this.src.store.items.idsAndKinds({ kind: ['summary', 'fact'], recallable: true, now })) {
      if (it.kind === 'summary') { recallSummaries++; if (index.hasVector(it.id)) vecSummaries++; }
      else { recallFacts++; if (index.hasVector(it.id)) vecFacts++; }
    }
    const invalidatedFacts = this.src.store.items.count({ kind: 'fact' }) - this.src.store.items.count({ kind: 'fact', recallable: true });
    const counters = this.src.store.counters.all();
    const pick = (prefix: string) => Object.fromEntries(Object.entries(counters).filter(([k]) => k.startsWith(prefix)).map(([k, v]) => [k.slice(prefix.length), v]));
    const blobs = this.src.store.rawBlobs.stats();
    const st = this.src.store.stats();
    return {
      enabled: s.enabled,
      storeDir: this.src.store.dir,
      vaultDir: this.src.vaultDir,
      embedder: head.embedder,
      items: Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, v ?? 0])),
      recallable: { summaries: recallSummaries, facts: recallFacts },
      vectors: {
        summaries: `${vecSummaries} of ${recallSummaries}`, facts: `${vecFacts} of ${recallFacts}`, total: index.vectorCount,
        pending: index.pendingVectorCount, partitions: index.vectorPartitions,
        lastRun: index.lastVectorRun ? new Date(index.lastVectorRun).toISOString() : null,
      },
      invalidatedFacts,
      conversations: this.src.store.conversations.count(),
      bufferedMessages: this.src.store.rawBuffers.conversations().reduce((n, c) => n + c.entries, 0),
      skips: pick('skip.'),
      saved: pick('saved.'),
      rawRecord: { enabled: s.l0Enabled, ...blobs, ratio: blobs.storedBytes > 0 ? Math.round((blobs.rawBytes / blobs.storedBytes) * 100) / 100 : null },
      switches: { captureToolResults: s.l0CaptureToolResults, captureThinking: s.l0CaptureThinking, includeSecrets: s.recallIncludeSecrets },
      recallBudgetChars: s.indexBudgetChars,
      store: { seq: st.seq, snapshotBytes: st.snapshotBytes, journalBytes: st.journalBytes, written: st.written },
      health: head.health,
      openReport: this.src.store.openReport,
      gate: gateModelStatus(),
    };
  }
}
