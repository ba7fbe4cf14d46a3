// Part of the typed repositories (see ../repositories.ts): the only place SQL for the engine's tables is written.
// raw_buffers: the per-conversation raw-record buffer, so a crash before the flush loses nothing
import { Repo, badInput, checkTime, json } from './repoBase';

export interface RawBufferEntry {
  conversation: string;
  seq: number;
  role: string;
  text: string;
  provenance: Record<string, unknown>;
  at: number;
}

/**
 * The messages (item ids) an entry stands for: one message's (`provenance.item`), or a run of one conversation's
 * messages from a long import (`provenance.items`: one row per conversation and chunk, not one per message).
 */
export function entryItems(e: Pick<RawBufferEntry, 'provenance'>): string[] {
  const many = e.provenance.items;
  if (Array.isArray(many)) return many.filter((x): x is string => typeof x === 'string');
  return typeof e.provenance.item === 'string' ? [e.provenance.item] : [];
}

export class RawBuffersRepo extends Repo {
  /** Appends with the next per-conversation sequence number (assigned when applied, so it is the same everywhere). */
  append(e: Omit<RawBufferEntry, 'seq'>): void {
    checkTime('at', e.at);
    if (typeof e.text !== 'string' || typeof e.conversation !== 'string') throw badInput('raw buffer entry needs conversation and text');
    this.write(
      // A scalar sub-select, not INSERT … SELECT FROM raw_buffers (which SQLite runs through a temp table).
      `INSERT INTO raw_buffers (conversation, seq, role, text, provenance, at)
       VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM raw_buffers WHERE conversation = ?), ?, ?, ?, ?)`,
      [e.conversation, e.conversation, e.role, e.text, JSON.stringify(e.provenance ?? {}), e.at],
    );
  }
  list(conversation: string): RawBufferEntry[] {
    return this.q.all('SELECT * FROM raw_buffers WHERE conversation = ? ORDER BY seq', [conversation]).map((r) => ({
      conversation: String(r.conversation), seq: Number(r.seq), role: String(r.role), text: String(r.text),
      provenance: json(r.provenance, {}), at: Number(r.at),
    }));
  }
  /** Conversations with buffered messages: how many (an import's run counts its messages) and the oldest entry's time. */
  conversations(): { conversation: string; entries: number; oldest: number }[] {
    return this.q.all(`SELECT conversation, SUM(COALESCE(json_array_length(provenance, '$.items'), 1)) AS n, MIN(at) AS oldest
                         FROM raw_buffers GROUP BY conversation ORDER BY conversation`)
      .map((r) => ({ conversation: String(r.conversation), entries: Number(r.n), oldest: Number(r.oldest) }));
  }
  /** Removes entries up to and including `uptoSeq` (after they were flushed into the raw record). */
  clear(conversation: string, uptoSeq: number): void {
    this.write('DELETE FROM raw_buffers WHERE conversation = ? AND seq <= ?', [conversation, uptoSeq]);
  }
}
