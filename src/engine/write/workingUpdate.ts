// Keeps a conversation's working block (`wk:<conversation>`, R-MEM-1) in step with its turns.
import type { Clock, Logger } from '../host';
import type { EngineSettings } from '../settings';
import type { Store } from '../store/store';
import { leastTrusted } from '../types';
import { gate } from './poisonGate';
import type { TurnInput, TurnResult } from './turnWriter';
import { nextWorkingState, workingId, workingStateOf, workingText } from './working';

export interface WorkingDeps { store: Store; clock: Clock; logger: Logger; settings: EngineSettings }

/**
 * Working memory (R-MEM-1): the conversation's one block `wk:<conversation>`, updated deterministically from
 * the turn as saved (task, decisions, open questions, files), through the poison gate; it expires
 * `memory.working.ttlHours` after the last turn (consolidation archives it then).
 */
export async function updateWorkingBlock(d: WorkingDeps, t: TurnInput, res: TurnResult): Promise<void> {
  const ttlMs = Math.max(0, d.settings.workingTtlHours) * 3_600_000;
  if (!ttlMs) return;
  const id = workingId(t.conversation);
  const prev = d.store.items.get(id);
  const alive = prev && prev.archivedAt === null && prev.trust !== 'quarantined';
  const state = nextWorkingState(alive ? workingStateOf(prev.meta) : null, {
    title: t.title, user: res.saved?.user ?? t.user, assistant: res.saved?.assistant ?? t.assistant,
  });
  const text = workingText(state);
  const verdict = gate(text);
  if (verdict.verdict === 'reject') {
    d.logger.warn('gate.reject', { kind: 'working', detector: verdict.detector ?? '' });
    return;
  }
  const now = t.at ?? d.clock.now();
  const userTrust = t.trust ?? 'owner';
  await d.store.transaction((tx) => tx.items.put({
    id, kind: 'working', created: alive ? prev.created : now, updated: now, text, title: state.task, summary: state.task,
    conversation: t.conversation, project: t.project ?? prev?.project ?? null, projectType: t.projectType ?? prev?.projectType ?? null,
    trust: leastTrusted([userTrust], 'derived'), untrusted: verdict.verdict === 'untrusted' || (alive ? prev.untrusted : false),
    accessCount: alive ? prev.accessCount : 0, lastAccessed: alive ? prev.lastAccessed : null,
    expiresAt: now + ttlMs, entryPath: t.entryPath ?? null, meta: { working: state },
  }));
}
