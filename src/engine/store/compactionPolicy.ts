// When the store rewrites its snapshot (store.ts, "Compaction"): the options and the one decision.
// A compaction rewrites the whole snapshot S, so it runs only once the journal J has grown by a fixed
// fraction of S (bounded write amplification, however large the store grows); idle and close also
// compact once J would take more than ~2 s to replay at the next open, since every later open pays
// that replay again until a compaction (sql.js re-executes the statements at ~1 MB/s at 100k–1M items).

import { JOURNAL_HEADER_BYTES } from './journal';

export interface CompactionPolicy {
  /** Compact after a flush once the journal passes this many bytes and compactRatio × the snapshot. */
  compactBytes?: number;
  /**
   * Journal bytes per snapshot byte that trigger a compaction after a flush (default 0.5): bounds the
   * snapshot bytes rewritten per journal byte to 1/ratio, and the journal replayed at open to ratio·S.
   */
  compactRatio?: number;
  /** Compact after this long without local writes (ms)… */
  idleCompactMs?: number;
  /** …if the journal holds at least this many bytes and compactRatio/4 × the snapshot. */
  idleCompactBytes?: number;
  /** Below this snapshot size idle and close compact whatever the ratio (an export this small is cheap). */
  smallSnapshotBytes?: number;
  /**
   * Idle and close also compact once the journal passes this many bytes and 1/256 of the snapshot
   * (default 2 MiB: ~2 s of replay at the next open): at most 256 snapshot bytes per journal byte.
   */
  replayCompactBytes?: number;
}

export type ResolvedPolicy = Required<CompactionPolicy>;

export function resolvePolicy(p: CompactionPolicy): ResolvedPolicy {
  return {
    compactBytes: p.compactBytes ?? 8 * 1024 * 1024,
    compactRatio: p.compactRatio ?? 0.5,
    idleCompactMs: p.idleCompactMs ?? 60_000,
    idleCompactBytes: p.idleCompactBytes ?? 256 * 1024,
    smallSnapshotBytes: p.smallSnapshotBytes ?? 16 * 1024 * 1024,
    replayCompactBytes: p.replayCompactBytes ?? 2 * 1024 * 1024,
  };
}

/**
 * Whether a journal file of `journalFileBytes` (header included) is worth a compaction of this kind
 * over a snapshot of `snapshot` bytes: after a flush J > max(compactBytes, compactRatio·S); idle and close
 * J > max(replayCompactBytes, S/256) or J > compactRatio·S/4 (idle: and > idleCompactBytes), or any journal
 * at close (past idleCompactBytes at idle) while S < smallSnapshotBytes.
 */
export function worthCompacting(kind: 'write' | 'idle' | 'close', journalFileBytes: number, snapshot: number, p: ResolvedPolicy): boolean {
  const journal = journalFileBytes - JOURNAL_HEADER_BYTES;
  if (journal <= 0) return false;
  if (kind === 'write') return journalFileBytes > Math.max(p.compactBytes, p.compactRatio * snapshot);
  if (snapshot < p.smallSnapshotBytes) return kind === 'close' || journalFileBytes > p.idleCompactBytes;
  if (journal > Math.max(p.replayCompactBytes, snapshot / 256)) return true;
  return journalFileBytes > Math.max(kind === 'idle' ? p.idleCompactBytes : 0, (p.compactRatio / 4) * snapshot);
}
