// The per-turn write path (SPEC R-WRITE-1..5, R-MEM-4, R-MEM-6): save filter → raw item + journalled
// buffer entry (acknowledged once flushed to disk) → on flush: compressed raw record (a long import writes it
// as it goes), deterministic facts / summary / entities through the poison gate (raw items: rawMessages.ts). Invariants: a raw message is never dropped
// (a reject verdict quarantines it); derived rows are never more trusted than their sources and
// carry a project only when all sources do; nothing here calls a model.
import { errorCode } from '../errors';
import type { Clock, Logger } from '../host';
import { type Item, type ItemInput, entryItems } from '../store/repositories';
import type { Store, Tx } from '../store/store';
import type { EngineSettings } from '../settings';
import { type Trust, leastTrusted } from '../types';
import { deriveLabel } from './derive';
import { GatePool, type GateJob } from './gatePool';
import { stripRecallEcho } from './echo';
import { DedupBuffer, similarity, type SaveSkipRule } from './saveFilter';
import { entityOpsOf, factOpsOf, FLUSH_SOURCE_PROPS, type FlushSource, type SourcePairs } from './flushOps';
import { analyzeFlush, analyzeSummary, type FlushAnalysis, type FlushTexts, type SummaryAnalysis } from './flushAnalysis';
import { type MessageOrigin, type TurnInput, l0Extras, rawItem, validateTurn } from './rawMessages';

export { MAX_MESSAGE_CHARS, type MessageOrigin, type ToolResultInput, type TurnInput } from './rawMessages';

export interface TurnResult {
  ids: string[];
  skipped: { role: 'user' | 'assistant'; rule: SaveSkipRule }[];
  /** Recalled items the reply repeated: reinforced (access count, meta.reinforced) instead of saved again. */
  reinforced?: string[];
  /** The messages as saved and logged: the reply without the recall block and its fragments. */
  saved?: { user: string; assistant: string };
}

export interface ImportMessage extends MessageOrigin {
  conversation: string;
  role: 'user' | 'assistant';
  text: string;
  at: number;
  /** Kept on the row (e.g. a transcript's own message id). */
  meta?: Record<string, unknown>;
}

/** How a flush runs: `after` — a write it must follow (bulk flushes keep their order); `bulk` — may start workers. */
interface FlushOptions { after?: Promise<unknown>; bulk?: boolean }

/** What a flush read (TurnWriter.readFlush): its messages, the summary window and the texts to analyse. */
interface FlushRead {
  conversation: string;
  now: number;
  maxSeq: number;
  sources: FlushSource[];
  /** Raw messages of the conversation when read (a change meanwhile means reading again). */
  rawCount: number;
  window: FlushSource[];
  factSources: FlushSource[];
  entitySources: FlushSource[];
  texts: FlushTexts;
}

export interface FlushResult {
  conversation: string;
  messages: number;
  facts: number;
  superseded: number;
  entities: number;
  summaryId: string | null;
  summaryLevel: string | null;
}

const GATE_AHEAD = 3; // an import's chunks gated ahead (one left the worker idle while this thread indexed: README #16)
// Conversations a bulk flush reads and analyses ahead of the one it writes.
const FLUSH_AHEAD = 3;
// A flush of this many conversations may start the pool's workers for its analyses (a close flushing a few does not).
const BULK_FLUSH = 16;
// ~8,000 tokens at ~4 chars a token (R-WRITE-3 flush threshold).
const FLUSH_CHARS = 32_000;
// 30 minutes idle (R-WRITE-3).
const IDLE_FLUSH_MS = 30 * 60_000;
// Messages read back for a conversation summary: first and last matter most; 400 bounds the work.
const SUMMARY_MESSAGES = 400;

/** What counting a buffer's characters reads of its messages. */
const TEXT_PROPS = ['id', 'text', 'blobHash'] as const;

/** Roles derivation reads; tool results and reasoning (L0 extras) are kept verbatim but never derived from. */
const DERIVED_ROLES = new Set(['user', 'assistant']);

/**
 * What a long import hands the recall index ahead of its items (RecallIndex implements it): per text, the hash
 * embedder's vector of width `primeDims` (null: the index's embedder is another one, nothing is made), made on the
 * gate pool's workers with the verdicts; `clearPrimed` once the index has read the items.
 */
export interface ImportPrimer {
  readonly primeDims: number | null;
  primeVector(text: string, vec: Float32Array): void;
  clearPrimed(): void;
}

export class TurnWriter {
  private readonly dedup: DedupBuffer;
  private readonly idleTimers = new Map<string, NodeJS.Timeout>();
  private readonly flushing = new Map<string, Promise<FlushResult | null>>();
  // Per conversation: characters buffered since its last flush (R-WRITE-3 size trigger). Counted from
  // the store once per conversation, then kept running, so a turn's acknowledgement never lists the buffer.
  private readonly buffered = new Map<string, number>();
  // A long import's texts by content address until the recall index has read them (cleared at each keepUp and at its end).
  private readonly importTexts = new Map<string, string>();
  /** Where a long import's vectors go when the gate pool's workers make them with the verdicts (unset: nowhere). */
  primer: ImportPrimer | undefined;

  constructor(
    private readonly store: Store,
    private readonly settings: () => EngineSettings,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** Gates an import's messages on more than one core (verdicts as `gate`'s, in order). */
    readonly gatePool: GatePool = new GatePool({ logger }),
  ) {
    this.dedup = new DedupBuffer(settings().saveDedupLookback);
  }

  /** Saves a turn (user message + final reply). Resolves once the journal record is on disk. */
  async recordTurn(t: TurnInput): Promise<TurnResult> {
    validateTurn(t);
    const s = this.settings();
    const at = t.at ?? this.clock.now();
    const userTrust: Trust = t.trust ?? 'owner';
    // A reply is engine/model output and never more trusted than what it answered (R-MEM-4).
    const assistantTrust: Trust = leastTrusted([userTrust], 'derived');
    const result: TurnResult = { ids: [], skipped: [] };
    const kept: { role: 'user' | 'assistant'; text: string; trust: Trust }[] = [];
    const filter = {
      saveMinChars: s.saveMinChars, saveFootnoteRatio: s.saveFootnoteRatio, saveCodeRatio: s.saveCodeRatio,
      saveDedupLookback: s.saveDedupLookback, saveDedupThreshold: s.saveDedupThreshold,
    };
    // No echo: the block (and any pasted <memory-context> span) never becomes new memory.
    const user = stripRecallEcho(t.user).text;
    const echo = stripRecallEcho(t.assistant, t.recall?.block);
    const recalledIds = new Set(t.recall?.ids ?? []);
    // Only ids that were in this turn's block are reinforced: a reply cannot name items into salience.
    const reinforce = new Set(echo.echoedIds.filter((id) => recalledIds.has(id)));
    let echoOnly = echo.removedChars > 0 && !echo.text.trim();
    if (!echoOnly && recalledIds.size && echo.text.trim()) {
      const restated = this.restatedItem(echo.text, [...recalledIds]);
      if (restated) { reinforce.add(restated); echoOnly = true; }
    }
    result.saved = { user, assistant: echo.text };
    for (const [role, text, trust] of [['user', user, userTrust], ['assistant', echo.text, assistantTrust]] as const) {
      if (role === 'assistant' && echoOnly) { result.skipped.push({ role, rule: 'echo' }); continue; }
      const skip = this.dedup.admit(t.conversation, { role, text }, filter);
      if (skip) result.skipped.push({ role, rule: skip.rule });
      else kept.push({ role, text, trust });
    }
    const reinforced = [...reinforce].filter((id) => this.store.items.get(id));
    if (reinforced.length) result.reinforced = reinforced;
    const extras = l0Extras(t, s, assistantTrust);
    // Chat order: user, reasoning, tool calls, reply (times 1 ms apart keep it when sorted by time).
    const ordered = [...kept.filter((m) => m.role === 'user'), ...extras, ...kept.filter((m) => m.role === 'assistant')];
    const items: ItemInput[] = ordered.map((m, i) => rawItem(t, m, at + i));
    const conv = this.store.conversations.get(t.conversation);
    const bufferedChars = this.bufferedCharsOf(t.conversation) + ordered.reduce((n, m) => n + m.text.length, 0);
    await this.store.transaction((tx) => {
      if (!conv) {
        tx.conversations.put({
          id: t.conversation, title: t.title ?? null, project: t.project ?? null, projectType: t.projectType ?? null,
          language: null, created: at,
        });
      }
      tx.conversations.touch(t.conversation, at);
      for (const it of items) {
        tx.items.put(it);
        tx.rawBuffers.append({
          conversation: t.conversation, role: it.role!, text: '', at: it.created,
          provenance: { item: it.id },
        });
      }
      for (const sk of result.skipped) tx.counters.add(`skip.${sk.rule}`);
      for (const it of items) tx.counters.add(`saved.${it.role}`);
      if (reinforced.length) {
        tx.items.touchAccess(reinforced, at);
        for (const id of reinforced) {
          const cur = this.store.items.get(id);
          if (!cur) continue;
          const n = typeof cur.meta.reinforced === 'number' ? cur.meta.reinforced : 0;
          tx.items.patch(id, { meta: { ...cur.meta, reinforced: n + 1, lastReinforced: at } });
        }
        tx.counters.add('reinforced.echo', reinforced.length);
      }
    });
    result.ids = items.map((i) => i.id);
    if (this.buffered.has(t.conversation)) this.buffered.set(t.conversation, bufferedChars);
    for (const it of items) if (it.trust === 'quarantined') this.logger.warn('gate.reject', { item: it.id, detector: String(it.meta?.gate ?? '') });
    this.logger.info('turn.saved', { conversation: t.conversation, saved: items.length, skipped: result.skipped.length });
    if (bufferedChars >= FLUSH_CHARS) void this.flushDetached(t.conversation, 'size');
    else this.armIdleFlush(t.conversation);
    return result;
  }

  /**
   * Imports messages verbatim (transcripts, benchmarks): no save filter — an import is deliberate —
   * but the same poison gate, secrets detection, raw record and derivation as a chat turn.
   */
  async importMessages(msgs: readonly ImportMessage[], keepUp?: () => Promise<void>): Promise<string[]> {
    const ids: string[] = [];
    const CHUNK = 500; // keeps each journal record small
    const long = msgs.length > CHUNK;
    const final = long && this.settings().l0Enabled;
    // The next chunks' verdicts (GATE_AHEAD) are computed on the pool's workers while this one is written and indexed;
    // this thread gates only what they have not done when it needs the verdicts.
    // With the hash embedder the workers also embed each message as they gate it (off this thread): the index then
    // takes those vectors instead of queueing the texts (RecallIndex.primeVector) — and the import no longer waits in
    // keepUp for a backlog of vectors (README, #16: import 230 → 181 s at 1M).
    const primer = long ? this.primer : undefined;
    const embedDims = primer?.primeDims ?? undefined;
    const verdictsOf = (from: number) => this.gatePool.start(msgs.slice(from, from + CHUNK).map((m) => (typeof m?.text === 'string' ? m.text : '')), { embedDims });
    const ahead: GateJob[] = [];
    for (let k = 0; k < GATE_AHEAD && k * CHUNK < msgs.length; k++) ahead.push(verdictsOf(k * CHUNK));
    try {
      for (let i = 0; i < msgs.length; i += CHUNK) {
        const chunk = msgs.slice(i, i + CHUNK);
        for (const m of chunk) validateTurn({ conversation: m.conversation, user: m.text, assistant: '', at: m.at, project: m.project, projectType: m.projectType });
        const job = ahead.shift()!;
        const gated = await job.wait();
        if (primer && embedDims) chunk.forEach((m, k) => { const v = job.vectors[k]; if (v) primer.primeVector(m.text, v); });
        if (i + GATE_AHEAD * CHUNK < msgs.length) ahead.push(verdictsOf(i + GATE_AHEAD * CHUNK));
        const items = chunk.map((m, k) => {
          const trust: Trust = m.role === 'user' ? (m.trust ?? 'owner') : leastTrusted([m.trust ?? 'owner'], 'derived');
          const it = rawItem(
            { conversation: m.conversation, user: '', assistant: '', project: m.project, projectType: m.projectType, provider: m.provider, model: m.model, entryPath: 'import' },
            { role: m.role, text: m.text, trust }, m.at, gated[k],
          );
          it.meta = { ...(it.meta ?? {}), ...(m.meta ?? {}) };
          return it;
        });
        await this.store.transaction((tx) => {
          // One put per new conversation (not one per message: each would be journaled).
          const added = new Set<string>();
          for (const m of chunk) {
            if (!added.has(m.conversation) && !this.store.conversations.get(m.conversation)) {
              added.add(m.conversation);
              tx.conversations.put({ id: m.conversation, title: m.title ?? null, project: m.project ?? null, projectType: m.projectType ?? null, language: null, created: m.at });
            }
          }
          // A long import writes each message's raw record as it goes (its items row never holds the text, so the flush
          // moves no row and compresses whole chunks, not one conversation at a time); a short one leaves it to the flush.
          // It also buffers them for derivation as one entry per conversation in the chunk, not one per message.
          const hashes = final ? tx.rawBlobs.putMany(items.map((it) => it.text!), this.clock.now()) : [];
          const runs = new Map<string, ItemInput[]>();
          items.forEach((it, k) => {
            const hash = hashes[k];
            if (hash) this.importTexts.set(hash, it.text!);
            tx.items.put(hash ? { ...it, text: null, blobHash: hash } : it);
            if (!long) tx.rawBuffers.append({ conversation: it.conversation!, role: it.role!, text: '', at: it.created, provenance: { item: it.id } });
            else if (runs.has(it.conversation!)) runs.get(it.conversation!)!.push(it);
            else runs.set(it.conversation!, [it]);
          });
          for (const [conversation, run] of runs) {
            tx.rawBuffers.append({ conversation, role: 'import', text: '', at: run[0]!.created, provenance: { items: run.map((it) => it.id) } });
          }
          tx.counters.add('imported', items.length);
        }, { defer: long }); // one chunk (a hook's few messages): an ordinary, acknowledged write, no second lock for sync()
        ids.push(...items.map((x) => x.id));
        // Every 5,000 messages (and at the end) the caller may hold the import until the derived work keeps up.
        if (keepUp && ((i + CHUNK) % 5_000 === 0 || i + CHUNK >= msgs.length)) { await keepUp(); this.importTexts.clear(); primer?.clearPrimed(); }
      }
    } finally {
      this.importTexts.clear();
      primer?.clearPrimed();
      await this.store.sync(); // several chunks deferred their fsyncs (journalSync.ts): one for the whole call
    }
    return ids;
  }

  /** Flushes one conversation's buffer (or all): raw record + derivation. */
  async flush(conversation?: string): Promise<FlushResult[]> {
    const convs = conversation ? [conversation] : this.store.rawBuffers.conversations().map((c) => c.conversation);
    const out: FlushResult[] = [];
    // A few at a time: the next conversations are read and analysed (on a worker when the pool has one) while
    // this one is written; the writes keep their order — a conversation's derivation reads what the one before wrote.
    let written: Promise<unknown> = Promise.resolve();
    const inFlight: Promise<FlushResult | null>[] = [];
    const bulk = convs.length >= BULK_FLUSH;
    const take = async (p: Promise<FlushResult | null> | undefined) => { const r = await p; if (r) out.push(r); };
    try {
      for (const c of convs) {
        const next = this.flushOne(c, { after: written, bulk });
        written = next.catch(() => null);
        inFlight.push(next);
        if (inFlight.length > FLUSH_AHEAD) await take(inFlight.shift());
      }
      for (const p of inFlight) await take(p);
    } finally {
      if (bulk) await this.store.sync(); // its writes deferred their fsyncs (one per many conversations, journalSync.ts)
    }
    return out;
  }

  /** Stops timers; the caller flushes on shutdown. */
  dispose(): void {
    for (const t of this.idleTimers.values()) clearTimeout(t);
    this.idleTimers.clear();
    void this.gatePool.close();
  }

  private flushDetached(conversation: string, why: string): Promise<void> {
    return this.flushOne(conversation).then(
      () => undefined,
      (e) => this.logger.error('flush.failed', { conversation, why, error: errorCode(e) }),
    );
  }

  private armIdleFlush(conversation: string): void {
    const prev = this.idleTimers.get(conversation);
    if (prev) clearTimeout(prev);
    const timer = setTimeout(() => {
      this.idleTimers.delete(conversation);
      void this.flushDetached(conversation, 'idle');
    }, IDLE_FLUSH_MS);
    timer.unref?.();
    this.idleTimers.set(conversation, timer);
  }

  private flushOne(conversation: string, opts: FlushOptions = {}): Promise<FlushResult | null> {
    const running = this.flushing.get(conversation);
    const next = (running ?? Promise.resolve(null)).catch(() => null).then(() => this.doFlush(conversation, opts));
    this.flushing.set(conversation, next);
    void next.finally(() => { if (this.flushing.get(conversation) === next) this.flushing.delete(conversation); }).catch(() => undefined);
    return next;
  }

  /** Characters of the messages waiting in `conversation`'s buffer (the entries point at their items). */
  private bufferedCharsOf(conversation: string): number {
    let n = this.buffered.get(conversation);
    if (n === undefined) {
      const ids = this.store.rawBuffers.list(conversation).flatMap(entryItems);
      n = 0;
      for (const x of this.textsOf(this.store.items.pick(ids, TEXT_PROPS))) n += x.length; // reads and inflates 500 at a time
      this.buffered.set(conversation, n);
    }
    return n;
  }

  private async doFlush(conversation: string, opts: FlushOptions): Promise<FlushResult | null> {
    let read = this.readFlush(conversation);
    if (!read) return null;
    let analysis = (await this.gatePool.analyzeFlush(read.texts, opts.bulk === true)) ?? analyzeFlush(read.texts);
    await opts.after;
    if (!this.stillAsRead(read)) {
      // Changed while it was analysed (a message forgotten or added): read and analyse it again, here.
      read = this.readFlush(conversation);
      if (!read) return null;
      analysis = analyzeFlush(read.texts);
    }
    return this.writeFlush(read, analysis, opts.bulk === true);
  }

  /** A flush's messages, its summary window and the texts its analysis reads (null: nothing buffered). */
  private readFlush(conversation: string): FlushRead | null {
    const entries = this.store.rawBuffers.list(conversation);
    if (entries.length === 0) return null;
    const sources = this.store.items.pick(entries.flatMap(entryItems), FLUSH_SOURCE_PROPS); // one query per 500, buffer order
    const rawCount = this.store.items.count({ kind: 'raw', conversation });
    const window = this.summaryWindow(conversation, sources, rawCount);
    const factSources = sources.filter((src) => src.trust !== 'quarantined' && DERIVED_ROLES.has(src.role ?? ''));
    const entitySources = factSources.filter((src) => !src.secret);
    const read = [...new Map([...sources, ...window].map((it) => [it.id, it])).values()];
    const textOf = new Map(this.textsOf(read).map((x, k) => [read[k]!.id, x]));
    return {
      conversation, now: this.clock.now(), maxSeq: entries[entries.length - 1]!.seq, sources, rawCount, window, factSources, entitySources,
      texts: {
        conversation, facts: factSources.map((src) => textOf.get(src.id)!), entities: entitySources.map((src) => textOf.get(src.id)!),
        summary: window.map((i) => ({ role: i.role!, text: textOf.get(i.id)! })),
      },
    };
  }

  /** Whether the conversation still holds what `r` read: the same raw messages, every source still there. */
  private stillAsRead(r: FlushRead): boolean {
    return this.store.items.count({ kind: 'raw', conversation: r.conversation }) === r.rawCount
      && this.store.items.countIds(r.sources.map((src) => src.id)) === new Set(r.sources.map((src) => src.id)).size;
  }

  /** Writes a flush: raw record, facts, summary and entities of `r` from its analysis, as one record (`bulk`: its fsync deferred). */
  private async writeFlush(r: FlushRead, analysis: FlushAnalysis, bulk: boolean): Promise<FlushResult> {
    const { conversation, now, maxSeq, sources } = r;
    const s = this.settings();
    const conv = this.store.conversations.get(conversation);
    const project = conv?.project ?? null;
    const res: FlushResult = { conversation, messages: sources.length, facts: 0, superseded: 0, entities: 0, summaryId: null, summaryLevel: null };

    const factOps = factOpsOf(this.store, this.logger, conversation, project, r.factSources, analysis.facts);
    res.facts = factOps.facts;
    res.superseded = factOps.superseded;

    const built = this.summaryItem(conversation, r.window, analysis.summary, now);
    if (built) {
      res.summaryId = built.item.id;
      res.summaryLevel = String(built.item.meta?.level ?? '');
    }

    const entityOps = entityOpsOf(this.store, r.entitySources, analysis.entities, now);
    res.entities = entityOps.entities;

    await this.store.transaction((tx) => {
      // The raw record: the flush's messages compressed together, each content-addressed; the item
      // keeps its own provenance stamp.
      const pending = sources.filter((src) => !src.blobHash && src.text !== null);
      if (!s.l0Enabled) for (const src of pending) tx.items.delete(src.id);
      else {
        const hashes = tx.rawBlobs.putMany(pending.map((src) => src.text!), now);
        pending.forEach((src, i) => tx.items.moveTextToRaw(src.id, hashes[i]!));
      }
      const pairs: SourcePairs = [];
      for (const op of factOps.ops) op(tx, pairs);
      if (built) this.putSummary(tx, built);
      for (const op of entityOps.ops) op(tx, pairs);
      tx.itemSources.addPairs(pairs); // the facts' and entities' sources, many to a statement (one each, mostly)
      tx.rawBuffers.clear(conversation, maxSeq);
      tx.counters.add('flushes');
    }, { defer: bulk });
    // Recounted from the store on the next turn (entries buffered during the flush stay counted).
    this.buffered.delete(conversation);
    this.logger.info('flush.done', { conversation, messages: res.messages, facts: res.facts, superseded: res.superseded, entities: res.entities, summary: res.summaryLevel ?? 'none' });
    return res;
  }

  /** Re-derives a conversation's summary from what is left of it (after a forget); drops it when nothing is. */
  async resummarize(conversation: string): Promise<void> {
    const window = this.summaryWindow(conversation, [], 0);
    const texts = window.map((i) => ({ role: i.role!, text: this.textOf(i) }));
    const built = this.summaryItem(conversation, window, analyzeSummary(conversation, texts), this.clock.now());
    await this.store.transaction((tx) => {
      if (built) this.putSummary(tx, built);
      else {
        tx.items.delete(`gs:${conversation}`);
        tx.itemSources.remove(`gs:${conversation}`);
      }
    });
  }

  /**
   * The messages a conversation's summary is made of (quarantined ones never feed it): the first 20 and the
   * latest, oldest first. `read`: raw items of the conversation the caller holds already (a flush's sources) —
   * when they are all of them (`rawCount`: a conversation's first flush), they are not read again.
   */
  private summaryWindow(conversation: string, read: readonly FlushSource[], rawCount: number): FlushSource[] {
    const held = read.filter((i) => i.kind === 'raw' && i.conversation === conversation);
    const all = (held.length > 0 && rawCount === held.length
      ? [...held].sort((a, b) => a.created - b.created || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)) // as list's ORDER BY created, id
      : this.store.items.list({ kind: 'raw', conversation, order: 'created' })
    ).filter((i) => i.trust !== 'quarantined' && (i.role === 'user' || i.role === 'assistant'));
    return all.length > SUMMARY_MESSAGES ? [...all.slice(0, 20), ...all.slice(-(SUMMARY_MESSAGES - 20))] : all;
  }

  /** The summary item of `window` from its analysis (undefined without messages). */
  private summaryItem(conversation: string, window: readonly FlushSource[], a: SummaryAnalysis | null, now: number): { item: ItemInput; sources: string[] } | undefined {
    if (!a || window.length === 0) return undefined;
    const deg = a.degraded;
    if (deg.detector) this.logger.warn('gate.reject', { kind: 'summary', conversation, detector: deg.detector, level: deg.level });
    const conv = this.store.conversations.get(conversation);
    const label = deriveLabel(window);
    const item: ItemInput = {
      id: `gs:${conversation}`, kind: 'summary', subkind: 'conversation', text: deg.text, summary: deg.text,
      title: conv?.title ?? null, trust: label.trust, secret: label.secret, untrusted: deg.verdict === 'untrusted',
      project: label.project, projectType: label.project ? null : (conv?.projectType ?? null), conversation,
      created: window[0]!.created, updated: now, validFrom: window[0]!.created, role: null,
      importance: a.importance, sourceType: 'derivation', tags: a.topics, meta: { level: deg.level, messages: window.length },
    };
    return { item, sources: window.map((i) => i.id) };
  }

  private putSummary(tx: Tx, built: { item: ItemInput; sources: string[] }): void {
    tx.items.put(built.item);
    tx.itemSources.remove(built.item.id);
    tx.itemSources.add(built.item.id, built.sources);
  }

  /** The verbatim text of a raw item (inline before its flush, from the compressed record after). */
  /**
   * The recalled item a reply restates (Dice similarity ≥ the dedup threshold against the item's text or,
   * for a note, its summary), or null. Only the ids of this turn's block are compared.
   */
  private restatedItem(reply: string, ids: readonly string[]): string | null {
    const threshold = Math.min(0.95, Math.max(0.5, this.settings().saveDedupThreshold));
    const r = reply.replace(/\[source:[^\]]*\]/g, '').replace(/\s+/g, ' ').trim();
    if (!r) return null;
    for (const it of this.store.items.getMany(ids.slice(0, 50))) {
      const texts = [it.summary ?? '', this.textOf(it)];
      for (const x of texts) {
        const t = x.replace(/\s+/g, ' ').trim();
        if (t && similarity(t, r, threshold) >= threshold) return it.id;
      }
    }
    return null;
  }

  /** The texts of `items` in order: the raw record read one query per 500 addresses, not one per message (textOf: one item). */
  private textsOf(items: readonly Pick<Item, 'text' | 'blobHash'>[]): string[] {
    const want = items.filter((it) => it.text === null && it.blobHash && !this.importTexts.has(it.blobHash)).map((it) => it.blobHash!);
    const stored = want.length > 0 ? this.store.rawBlobs.textsOf(want) : undefined;
    return items.map((it) => it.text ?? (it.blobHash ? (this.importTexts.get(it.blobHash) ?? stored?.get(it.blobHash) ?? '') : ''));
  }

  textOf(item: Pick<Item, 'text' | 'blobHash'>): string {
    return this.textsOf([item])[0]!;
  }
}
