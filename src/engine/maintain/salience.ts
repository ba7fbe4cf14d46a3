// Salience (SPEC R-MAINT-2): how much an episodic item is worth keeping in reach, in [0, 1]. A pure
// function of importance, reinforcement (the same thing seen again), use (recalls) and age, decaying by
// kind with the same half-lives as recall ranking (rank.ts). Consolidation stores it in items.salience.
import { HALF_LIFE_DAYS, recencyFactor } from '../recall/rank';
import type { ItemKind } from '../types';

export interface SalienceInput {
  kind: ItemKind;
  created: number;
  /** Last recall / search / expand that returned it (ms), if any. */
  lastAccessed: number | null;
  accessCount: number;
  /** Rows in item_sources for it (facts: each message that stated it; summaries: their conversation's messages). */
  sources: number;
  /** Newest source's time (ms): a fact stated again is fresh again. */
  lastSourceAt: number | null;
  /** Entities: meta.mentions. */
  mentions?: number;
  /** Notes: meta.reinforced (History bullets added by capture / consolidation). */
  reinforced?: number;
  /** [0, 1]; 0.5 when unknown (the recall ranking's default). */
  importance: number | null;
  pinned: boolean;
}

/**
 * Shares of the undecayed value. Importance alone keeps a fresh fact at 0.4 × 0.5 = 0.2, well clear of
 * the demotion threshold (0.05) and of promotion (0.6): only reinforcement or use can lift it that far.
 */
export const SALIENCE_WEIGHTS = { importance: 0.4, reinforcement: 0.3, access: 0.3 } as const;
/** Events for a 63 % share (1 − e^−1): the 2nd repeat or recall counts a lot, the 10th little. */
const SATURATION_EVENTS = 2;

/**
 * How often the item recurred beyond its first appearance: a fact's extra stating messages, an entity's
 * extra mentions, a note's History bullets. A summary's sources are its own conversation, not repeats: 0.
 */
export function recurrenceOf(i: Pick<SalienceInput, 'kind' | 'sources' | 'mentions' | 'reinforced'>): number {
  switch (i.kind) {
    case 'fact': return Math.max(0, i.sources - 1);
    case 'entity': return Math.max(0, (i.mentions ?? 0) - 1, i.sources - 1);
    case 'note': return Math.max(0, i.reinforced ?? 0);
    default: return 0;
  }
}

/** The latest sign of life: created, last stated again, last recalled. Age (and decay) counts from here. */
export function lastActivity(i: Pick<SalienceInput, 'created' | 'lastAccessed' | 'lastSourceAt'>): number {
  return Math.max(i.created, i.lastAccessed ?? 0, i.lastSourceAt ?? 0);
}

/** Salience at `nowMs`, rounded to 0.001 (so an unchanged item re-scores to the same stored value). */
export function salience(i: SalienceInput, nowMs: number): number {
  const imp = clamp01(i.importance ?? 0.5);
  const reinf = 1 - Math.exp(-recurrenceOf(i) / SATURATION_EVENTS);
  const use = 1 - Math.exp(-Math.max(0, i.accessCount) / SATURATION_EVENTS);
  const base = SALIENCE_WEIGHTS.importance * imp + SALIENCE_WEIGHTS.reinforcement * reinf + SALIENCE_WEIGHTS.access * use;
  const decay = recencyFactor(i.kind, lastActivity(i), nowMs, i.pinned);
  return Math.round(clamp01(base * decay) * 1000) / 1000;
}

/** Days since the last activity (never negative). */
export function idleDays(i: Pick<SalienceInput, 'created' | 'lastAccessed' | 'lastSourceAt'>, nowMs: number): number {
  return Math.max(0, nowMs - lastActivity(i)) / 86_400_000;
}

export { HALF_LIFE_DAYS };

function clamp01(x: number): number {
  return Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
}
