// Memory-use health (SPEC R-MAINT-3): every N turns the engine samples its own footprint — the bytes memory
// itself holds in RAM (sql.js's WASM heap, the keyword and vector indexes, caches; see
// MemoryEngine.footprint) — and rates it ok / warn / critical. Never the host process's RSS: an extension
// host is shared by every extension, so its RSS says nothing about memory. Invariant: a notice is produced once per worsening (ok→warn, warn→critical,
// ok→critical) and a level is never announced again until the use recovered below it and worsened again.
import type { EngineSettings } from '../settings';

export type HealthLevel = 'ok' | 'warn' | 'critical';

/**
 * What memory itself costs (R-MAINT-3), never the host process's RSS (shared by every extension).
 * `memoryBytes` — what the health level rates — is the RAM the engine holds: the database (sql.js's WASM
 * heap plus the database file sql.js keeps in memory), the keyword and vector indexes, and caches (per-item metadata, texts waiting
 * for a vector). `diskBytes` is the store folder's files: snapshot, journal, saved index and vectors.
 * The embedding model's own memory is not counted (a fixed cost, the same with 5 or 100k items).
 */
export interface EngineFootprint {
  memoryBytes: number;
  /** sql.js: its WASM heap (page cache, working memory) plus the database file it keeps in memory. */
  databaseBytes: number;
  keywordIndexBytes: number;
  vectorIndexBytes: number;
  cacheBytes: number;
  diskBytes: number;
  disk: { snapshotBytes: number; journalBytes: number; indexBytes: number; vectorBytes: number };
}

export interface EngineHealth {
  level: HealthLevel;
  /** The footprint's `memoryBytes` (what the level rates). */
  bytes: number;
  warnBytes: number;
  critBytes: number;
  footprint: EngineFootprint;
}


const RANK: Record<HealthLevel, number> = { ok: 0, warn: 1, critical: 2 };

export interface HealthOptions {
  /** Turns between samples (`memory.health.everyNTurns`, 50). */
  everyNTurns: number;
  /** `memory.health.warnBytes`, 256 MiB. */
  warnBytes: number;
  /** `memory.health.critBytes`, 512 MiB. */
  critBytes: number;
  /** The engine's footprint in bytes now (MemoryEngine.footprint().memoryBytes). */
  sample: () => number;
}

export interface HealthReading {
  level: HealthLevel;
  bytes: number;
  at: number;
}

export function healthLevel(bytes: number, warnBytes: number, critBytes: number): HealthLevel {
  return bytes >= critBytes ? 'critical' : bytes >= warnBytes ? 'warn' : 'ok';
}

function mb(bytes: number): string {
  return `${Math.round(bytes / (1024 * 1024))} MB`;
}

/** The save filter's skips (R-WRITE-2) as one phrase: "12 (length_floor 9, dedup 2, echo 1)" or "none". */
export function describeSkips(skips: Record<string, number>): string {
  const rows = Object.entries(skips).filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  if (!rows.length) return 'none';
  return `${rows.reduce((n, [, v]) => n + v, 0)} (${rows.map(([k, v]) => `${k} ${v}`).join(', ')})`;
}

/** 1.2 MB, 340 KB, 12 bytes — for the cards. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} bytes`;
}

/** One line for the status cards: the level, what it rates and where the bytes are. */
export function describeHealth(h: EngineHealth): string {
  const f = h.footprint;
  return `${h.level} — memory holds ${formatBytes(f.memoryBytes)} in RAM (database ${formatBytes(f.databaseBytes)}, keyword index ${formatBytes(f.keywordIndexBytes)}, `
    + `vectors ${formatBytes(f.vectorIndexBytes)}, caches ${formatBytes(f.cacheBytes)}; warning at ${formatBytes(h.warnBytes)}, critical at ${formatBytes(h.critBytes)}) `
    + `and ${formatBytes(f.diskBytes)} on disk`;
}

export class HealthMonitor {
  private turns = 0;
  private last: HealthReading | undefined;
  /** The worst level already announced (or pending) since the last recovery. */
  private announced: HealthLevel = 'ok';
  private pending: HealthReading | undefined;
  private readonly sample: () => number;

  constructor(private opts: HealthOptions) {
    this.sample = opts.sample;
  }

  static fromSettings(s: Pick<EngineSettings, 'healthEveryNTurns' | 'healthWarnBytes' | 'healthCritBytes'>, sample: () => number): HealthMonitor {
    return new HealthMonitor({ everyNTurns: s.healthEveryNTurns, warnBytes: s.healthWarnBytes, critBytes: s.healthCritBytes, sample });
  }

  /** New thresholds apply from the next check (settings change without a reload). */
  update(s: Partial<Pick<HealthOptions, 'everyNTurns' | 'warnBytes' | 'critBytes'>>): void {
    this.opts = { ...this.opts, ...s };
  }

  /** Counts one turn; every `everyNTurns` turns it checks and returns the reading, else undefined. */
  onTurn(at = Date.now()): HealthReading | undefined {
    this.turns++;
    const every = Math.max(1, Math.floor(this.opts.everyNTurns) || 1);
    if (this.turns % every !== 0) return undefined;
    return this.check(at);
  }

  /** Samples now (also for `/status`) and updates the notice state. */
  check(at = Date.now()): HealthReading {
    const bytes = this.sample();
    const level = healthLevel(bytes, this.opts.warnBytes, this.opts.critBytes);
    const reading = { level, bytes, at };
    this.last = reading;
    if (RANK[level] > RANK[this.announced]) {
      this.announced = level;
      this.pending = reading;
    } else if (RANK[level] < RANK[this.announced]) {
      // Recovered: the level may be announced again when it comes back. A notice not yet shown is stale.
      this.announced = level;
      if (this.pending && RANK[this.pending.level] > RANK[level]) this.pending = undefined;
    }
    return reading;
  }

  /** The latest reading (undefined before the first check). */
  get reading(): HealthReading | undefined {
    return this.last;
  }

  get level(): HealthLevel {
    return this.last?.level ?? 'ok';
  }

  /** A one-line notice for the next answer, exactly once per worsening; null otherwise. */
  notice(): string | null {
    const p = this.pending;
    if (!p) return null;
    this.pending = undefined;
    if (p.level === 'critical') {
      return `Memory health is critical: memory holds ${mb(p.bytes)} in RAM (its database, indexes and caches; critical above ${mb(this.opts.critBytes)}). Run "Memory: Consolidate Now" to archive what is no longer used.`;
    }
    return `Memory health warning: memory holds ${mb(p.bytes)} in RAM (its database, indexes and caches; warning above ${mb(this.opts.warnBytes)}). Consolidating memory may help.`;
  }
}
