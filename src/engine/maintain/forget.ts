// Forget (R-MAINT-4): one item deleted everywhere memory keeps it — the rows and the rows derived only
// from it, the keyword and vector index entries, the note file, its raw-record slot, its daily-log
// blocks — then the saved index rewritten and the store compacted, so no copy stays in the journal.
import { promises as fsp } from 'node:fs';
import { errorCode, MemoryError } from '../errors';
import type { Clock, Logger } from '../host';
import type { RecallIndex } from '../recall/recallIndex';
import type { Item } from '../store/repositories';
import type { Store } from '../store/store';
import { ID_PREFIXES_TEXT, kindOfId } from '../types';
import { forgetInLogs, logDaysWith, type LogMessageMatch } from '../vault/dailyLog';
import { localDay, relPathOfId, resolveInVault } from '../vault/vaultLayout';
import type { TurnWriter } from '../write/turnWriter';
import { workingId } from '../write/working';

/** What a forget removes (forgetPreview): ids, paths, days and counts — never memory text. */
export interface ForgetPlan {
  id: string;
  kind: string;
  /** Rows derived only from this item (facts, entities, a one-message summary): deleted with it. */
  derived: string[];
  /** The vault note file deleted (vault-relative path), if the item is a note. */
  noteFile: string | null;
  /** Its slot in the compressed raw record is blanked (no other message shares the content). */
  rawRecord: boolean;
  /** Daily logs (`YYYY-MM-DD`) whose block of this message is cut. */
  logDays: string[];
  /** Keyword-index entries and vectors removed (item + derived). */
  indexed: number;
  vectors: number;
  /** The conversation summary re-derived without this message, if any. */
  summaryRewritten: string | null;
}

/** The confirmation's list: one line per place the forget reaches (ids, paths, days; no memory text). */
export function describeForgetPlan(p: ForgetPlan): string[] {
  const lines = [`the ${p.kind} ${p.id} and its keyword-index entry${p.vectors ? ' and vector' : ''}`];
  if (p.derived.length) lines.push(`${p.derived.length} row(s) derived only from it: ${p.derived.slice(0, 5).join(', ')}${p.derived.length > 5 ? ', …' : ''}`);
  if (p.noteFile) lines.push(`the note file ${p.noteFile}`);
  if (p.rawRecord) lines.push('its copy in the compressed raw record');
  if (p.logDays.length) lines.push(`its message in the daily log${p.logDays.length > 1 ? 's' : ''} ${p.logDays.map((d) => `logs/${d}.md`).join(', ')}`);
  if (p.summaryRewritten) lines.push(`its part of the conversation summary ${p.summaryRewritten} (re-derived)`);
  return lines;
}

export interface ForgetDeps {
  store: Store;
  vaultDir: string;
  clock: Clock;
  logger: Logger;
  writer: Pick<TurnWriter, 'textOf' | 'resummarize'>;
  /** The recall index, caught up. */
  index(): RecallIndex;
  /** Resolves once detached daily-log appends and working-block updates are on disk. */
  whenLogsWritten(): Promise<void>;
  syncIndex(): void;
  persistIndex(why: 'forget'): void;
}

export class Forgetter {
  constructor(private readonly d: ForgetDeps) {}

  /**
   * What forgetting `id` would remove, everywhere memory keeps it (R-MAINT-4; shown in the confirmation):
   * the item and the rows derived only from it (store, keyword and vector indexes), its note file, its slot
   * in the raw record, and its message blocks in the daily logs. Changes nothing.
   */
  async preview(id: string): Promise<ForgetPlan> {
    if (typeof id !== 'string' || !kindOfId(id)) throw new MemoryError('E_BAD_ID', `unknown memory id format (expected ${ID_PREFIXES_TEXT})`);
    if (id.startsWith('vt:')) relPathOfId(id);
    const item = this.d.store.items.get(id);
    if (!item) throw new MemoryError('E_NOT_FOUND', 'no such memory');
    const derived = this.d.store.itemSources.derivedFrom(id).filter((d) => {
      const srcs = this.d.store.itemSources.sourcesOf(d);
      return srcs.length === 1 && srcs[0] === id;
    });
    // The conversation's working block quotes its turns: it goes too (the next turn starts a new one).
    if (item.kind === 'raw' && item.conversation && this.d.store.items.get(workingId(item.conversation))) derived.push(workingId(item.conversation));
    await this.d.whenLogsWritten();
    const rawRecord = !!item.blobHash && !this.d.store.items.blobSharedWith(item.blobHash, id); // before: every raw row decoded
    const match = this.logMatchOf(item);
    const logDays = match ? await logDaysWith(this.d.vaultDir, this.logDaysAround(item.created), match) : [];
    const index = this.d.index();
    return {
      id, kind: item.kind, derived,
      noteFile: item.kind === 'note' && item.path ? item.path : null,
      rawRecord,
      logDays,
      indexed: [id, ...derived].filter((x) => index.has(x)).length,
      vectors: [id, ...derived].filter((x) => index.hasVector(x)).length,
      summaryRewritten: item.kind === 'raw' && item.conversation && !derived.includes(`gs:${item.conversation}`) && this.d.store.items.get(`gs:${item.conversation}`)
        ? `gs:${item.conversation}` : null,
    };
  }

  /**
   * Deletes one item everywhere memory keeps it (see forgetPreview): the rows, the index entries and vectors,
   * the note file, its raw-record slot, its daily-log blocks (each file rewritten atomically, every other byte
   * unchanged); the saved index is rewritten and the store compacted, so no copy stays in the journal. The
   * audit row records ids and counts only.
   */
  async forget(id: string, actor = 'user'): Promise<{ id: string; removed: string[]; plan: ForgetPlan }> {
    await this.d.whenLogsWritten(); // a detached log append or working-block update of this turn lands first
    const plan = await this.preview(id);
    const item = this.d.store.items.get(id);
    if (!item) throw new MemoryError('E_NOT_FOUND', 'no such memory');
    const removed = [id, ...plan.derived];
    const match = this.logMatchOf(item);
    if (item.kind === 'note' && item.path) {
      try {
        await fsp.unlink(resolveInVault(this.d.vaultDir, item.path, { allowHidden: true }));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
    }
    await this.d.store.transaction((tx) => {
      for (const r of removed) {
        tx.items.delete(r);
        tx.itemSources.remove(r);
      }
      if (item.blobHash && plan.rawRecord) tx.rawBlobs.delete(item.blobHash);
      tx.audit.add({
        at: this.d.clock.now(), action: 'forget', actor, itemId: id,
        detail: { kind: item.kind, removed, file: plan.noteFile !== null, rawRecord: plan.rawRecord, logEntries: plan.logDays.length },
      });
    });
    // A summary that also drew on other messages is re-derived without the forgotten one.
    if (plan.summaryRewritten) await this.d.writer.resummarize(item.conversation!);
    // The daily log's copy: only blocks of this message (same role, conversation and text) are cut.
    let logDays: string[] = [];
    if (match && plan.logDays.length) {
      await this.d.whenLogsWritten();
      logDays = await forgetInLogs(this.d.vaultDir, plan.logDays, match);
    }
    // No copy left behind: the index image (it lists ids) and the journal (it holds the original write).
    this.d.syncIndex();
    this.d.persistIndex('forget');
    await this.d.store.compact().catch((e) => this.d.logger.warn('forget.compact_failed', { error: errorCode(e) }));
    this.d.logger.info('forget', { id, removed: removed.length, logDays: logDays.length });
    return { id, removed, plan };
  }

  /** The daily-log message an item was saved from (raw user / assistant messages only). */
  private logMatchOf(item: Item): LogMessageMatch | null {
    if (item.kind !== 'raw' || (item.role !== 'user' && item.role !== 'assistant')) return null;
    const text = this.d.writer.textOf(item);
    return text ? { conversation: item.conversation, role: item.role, text } : null;
  }

  /** The local days around a time (a log is named by the local day of the turn; ±1 covers a changed zone). */
  private logDaysAround(at: number): string[] {
    const tz = this.d.clock.timeZone();
    return [...new Set([-86_400_000, 0, 86_400_000].map((d) => localDay(at + d, tz)))];
  }
}
