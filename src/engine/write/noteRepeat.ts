// One "is this fact already a note?" rule for every writer of derived notes (capture R-WRITE-6,
// consolidation R-MAINT-1, an agent's memory_save): find the current in-scope note whose summary says the
// same thing (normalised equal, or similarity ≥ 0.85), and reinforce it with a `## History` bullet instead of
// writing a second file. Invariants: quarantined, hidden and archived notes are never matched; the bullet is
// masked (a failed scan writes nothing); the note's other bytes stay as they were.
import { promises as fsp } from 'node:fs';
import { MemoryError } from '../errors';
import type { Clock } from '../host';
import type { Item } from '../store/repositories';
import type { Store } from '../store/store';
import { inScope } from '../types';
import { appendHistory } from '../vault/noteParser';
import { replaceNoteFile } from '../vault/noteWriter';
import type { VaultIndex } from '../vault/vaultIndex';
import { isHiddenRelPath, localDay, resolveInVault } from '../vault/vaultLayout';
import { maskOrWithhold } from './mask';
import { similarity } from './saveFilter';

/** Same threshold as the save filter's near-duplicate rule (memory.save.dedupThreshold, 0.85). */
export const REINFORCE_SIMILARITY = 0.85;

/** Lower-case, accents and punctuation dropped, spaces collapsed: "the same summary" ignoring form. */
export function normalizeSummary(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

export interface RepeatScope {
  /** Only notes of this vault root (default the personal vault, `vt:`; the project vault's prefix when writing there). */
  idPrefix?: string;
  project?: string | null;
  projectType?: string | null;
  /**
   * true: only notes of exactly this scope (consolidation: a project fact never reinforces a global note);
   * false (default): every note visible from the scope (the project's, its type's and global notes).
   */
  exact?: boolean;
}

/** The current in-scope note whose summary is the same fact, best match first; undefined when none. */
export function findRepeatNote(store: Store, summary: string, scope: RepeatScope): Item | undefined {
  const want = normalizeSummary(summary);
  if (!want) return undefined;
  const project = scope.project ?? undefined;
  const projectType = scope.projectType ?? undefined;
  let best: Item | undefined;
  let bestScore = 0;
  const prefix = scope.idPrefix ?? 'vt:';
  store.items.forEach({ kind: 'note', archived: false }, (it) => {
    if (!it.id.startsWith(prefix)) return; // another vault root's note (the project vault): not written through these deps
    if (!it.path || isHiddenRelPath(it.path) || it.trust === 'quarantined' || it.archivedAt !== null) return;
    if (scope.exact && ((it.project ?? null) !== (project ?? null) || (it.projectType ?? null) !== (projectType ?? null))) return;
    if (!inScope({ project, projectType }, it.project, it.projectType)) return;
    const have = normalizeSummary(it.summary ?? '');
    if (!have) return;
    const score = have === want ? 1 : similarity(have, want, REINFORCE_SIMILARITY);
    if (score >= REINFORCE_SIMILARITY && score > bestScore) {
      best = it;
      bestScore = score;
    }
  });
  return best;
}

export interface ReinforceDeps {
  store: Store;
  vault: VaultIndex;
  vaultDir: string;
  clock: Clock;
}

/**
 * Adds `- <day>: seen again (<source>)[: <summary>]` to the note's History (the summary only when it is
 * worded differently), re-indexes the file and counts the reinforcement in the row's meta.
 * `maskedSummary` must already be masked; `source` names the writer, e.g. "capture, conversation c1".
 */
export async function reinforceNote(deps: ReinforceDeps, item: Item, maskedSummary: string, source: string): Promise<void> {
  const rel = item.path;
  if (!rel) throw new MemoryError('E_INTERNAL', 'only a vault note can be reinforced');
  const abs = resolveInVault(deps.vaultDir, rel);
  const content = await fsp.readFile(abs, 'utf8');
  const day = localDay(deps.clock.now(), deps.clock.timeZone());
  const same = normalizeSummary(item.summary ?? '') === normalizeSummary(maskedSummary);
  const bullet = maskOrWithhold(same ? `seen again (${source})` : `seen again (${source}): ${maskedSummary}`);
  if (!bullet.ok) throw new MemoryError('E_REFUSED', 'secret scan failed; note withheld');
  await replaceNoteFile(abs, appendHistory(content, day, bullet.text));
  await deps.vault.syncFile(rel);
  const cur = deps.store.items.get(item.id);
  if (cur) {
    const count = typeof cur.meta?.reinforced === 'number' ? cur.meta.reinforced : 0;
    const now = deps.clock.now();
    await deps.store.transaction((tx) => tx.items.patch(item.id, { meta: { ...cur.meta, reinforced: count + 1, lastReinforced: now } }));
  }
}
