// Memory-use health (SPEC R-MAINT-3): every N turns the engine samples its resident memory and rates it
// ok / warn / critical. Invariant: a notice is produced once per worsening (ok→warn, warn→critical,
// ok→critical) and a level is never announced again until the use recovered below it and worsened again.
import type { EngineSettings } from '../settings';

export type HealthLevel = 'ok' | 'warn' | 'critical';

const RANK: Record<HealthLevel, number> = { ok: 0, warn: 1, critical: 2 };

export interface HealthOptions {
  /** Turns between samples (`memory.health.everyNTurns`, 50). */
  everyNTurns: number;
  /** `memory.health.warnBytes`, 256 MiB. */
  warnBytes: number;
  /** `memory.health.critBytes`, 512 MiB. */
  critBytes: number;
  /** Resident bytes now; default `process.memoryUsage().rss` (injectable for tests). */
  sample?: () => number;
}

export interface HealthReading {
  level: HealthLevel;
  rssBytes: number;
  at: number;
}

export function healthLevel(bytes: number, warnBytes: number, critBytes: number): HealthLevel {
  return bytes >= critBytes ? 'critical' : bytes >= warnBytes ? 'warn' : 'ok';
}

function mb(bytes: number): string {
  return `${Math.round(bytes / (1024 * 1024))} MB`;
}

export class HealthMonitor {
  private turns = 0;
  private last: HealthReading | undefined;
  /** The worst level already announced (or pending) since the last recovery. */
  private announced: HealthLevel = 'ok';
  private pending: HealthReading | undefined;
  private readonly sample: () => number;

  constructor(private opts: HealthOptions) {
    this.sample = opts.sample ?? (() => process.memoryUsage().rss);
  }

  static fromSettings(s: Pick<EngineSettings, 'healthEveryNTurns' | 'healthWarnBytes' | 'healthCritBytes'>, sample?: () => number): HealthMonitor {
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
    const rssBytes = this.sample();
    const level = healthLevel(rssBytes, this.opts.warnBytes, this.opts.critBytes);
    const reading = { level, rssBytes, at };
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
      return `Memory health is critical: the memory engine uses ${mb(p.rssBytes)} of RAM (critical above ${mb(this.opts.critBytes)}). Run "Memory: Consolidate now" or restart VS Code.`;
    }
    return `Memory health warning: the memory engine uses ${mb(p.rssBytes)} of RAM (warning above ${mb(this.opts.warnBytes)}). Consolidating memory may help.`;
  }
}
