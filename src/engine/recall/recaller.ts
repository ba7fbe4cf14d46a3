// The read path (SPEC R-RECALL-1..7): search, the budgeted recall block and drill-down (expand),
// all bound to a conversation's scope. Scope and trust filtering happen here, before any text
// leaves the engine; a caller can never receive an item the conversation may not see.
import { MemoryError, errorCode } from '../errors';
import type { Clock, Logger } from '../host';
import type { Item } from '../store/repositories';
import type { Store } from '../store/store';
import type { EngineSettings } from '../settings';
import { type ItemKind, type Scope, type Trust, inScope, ID_PREFIXES_TEXT, kindOfId, NOTE_KINDS } from '../types';
import { readLongterm } from '../vault/longterm';
import { parseNote } from '../vault/noteParser';
import { LONGTERM_FILE, relPathOfId, resolveInVault } from '../vault/vaultLayout';
import { promises as fsp, statSync } from 'node:fs';
import * as path from 'node:path';
import { queryTerms } from './keywordIndex';
import { buildQuery } from './queryBuilder';
import { agentFilesFor } from '../project/agentFiles';
import { passageAround, scoreCandidate } from './rank';
import { budgetFor, buildRecallBlock, type IndexEntry } from './recallBlock';
import type { RecallIndex } from './recallIndex';

/** Who is asking: the conversation decides the scope; a project argument only applies to a new one. */
export interface ReadContext {
  conversation?: string;
  project?: string;
  projectType?: string;
  /** The conversation is new (first turn): an unknown id is fine and takes `project`. */
  newConversation?: boolean;
  /**
   * `search` only: these kinds only (e.g. ['raw', 'fact', 'note'] for evidence, leaving out summaries
   * and entities, which point at no single message). The recall block always uses every kind.
   */
  kinds?: readonly ItemKind[];
}

export interface ResolvedContext {
  scope: Scope;
  conversation?: string;
}

export interface SearchHit {
  id: string;
  kind: ItemKind;
  score: number;
  trust: Trust;
  text: string;
  /** Note kind, fact subject… */
  subkind?: string | null;
  created: number;
}

export interface RecallRequest extends ReadContext {
  message: string;
  previousUserMessages?: string[];
  title?: string;
  task?: string;
  /** The answering model's context window in tokens (scales the budget). */
  window?: number;
  canUseTools?: boolean;
  /**
   * The agent the block is for ('claude-code', 'copilot-vscode', 'copilot-cli', …): sections of the agent files
   * its runtime already reads (project/agentFiles.ts agentFilesFor) are left out of its block.
   */
  agent?: string;
}

export interface RecallResult {
  block: string;
  items: string[];
  hits: SearchHit[];
  /** Why the block is empty, if it is (fail-soft reasons). */
  reason?: string;
}

export interface ExpandResult {
  id: string;
  kind: ItemKind;
  trust: Trust;
  sourceType: string | null;
  text: string;
  truncated: boolean;
  /** Raw messages: the conversation summary when it may be recalled. */
  conversationSummary?: { id: string; text: string };
  /** Entities: name, type, aliases, current facts. */
  entity?: { name: string; type: string; aliases: string[]; facts: { id: string; text: string }[] };
  /** Facts and summaries: what they were derived from. */
  sources?: string[];
  path?: string;
}

const EXPAND_MAX_CHARS = 8000; // R-RECALL-7
const HIT_TEXT_MAX = 280; // R-RECALL-4 passage length
const RECENT_TASK_SUMMARIES = 5; // R-RECALL-5
const DURABLE_SUMMARIES = 200; // newest summaries considered for the durable index
// The long-term file is re-checked (one stat) at most this often: an edit shows up within ~1 s.
const LONGTERM_CHECK_MS = 1000;

/** What the durable index needs of a note or summary row (cached; no body text kept). */
interface DurableRow {
  id: string;
  subkind: string | null;
  summary: string | null;
  title: string | null;
  pinned: boolean;
  project: string | null;
  projectType: string | null;
  conversation: string | null;
  trust: Trust;
  untrusted: boolean;
  secret: boolean;
  archived: boolean;
  invalidated: boolean;
  expiresAt: number | null;
  created: number;
}

function durableRow(it: Item): DurableRow {
  return {
    id: it.id, subkind: it.subkind, summary: it.summary, title: it.title, pinned: it.pinned, project: it.project,
    projectType: it.projectType, conversation: it.conversation, trust: it.trust, untrusted: it.untrusted, secret: it.secret,
    archived: it.archivedAt !== null, invalidated: it.invalidatedAt !== null, expiresAt: it.expiresAt, created: it.created,
  };
}

export class Recaller {
  // Durable-index inputs (notes sorted for display, newest summaries), rebuilt after a vt:/gs: change.
  private durable: { notes: DurableRow[]; summaries: DurableRow[] } | null = null;
  private longterm: { text: string; mtimeMs: number; size: number; checkedAt: number } | null = null;
  /** Beyond scope: may reads show this row? (the project vault shows its rows only while attached). */
  rowVisible: (id: string, meta?: Readonly<Record<string, unknown>>) => boolean = () => true;
  /** The folder a note's `path` is relative to (the project vault's for `pv:` ids); undefined: not readable now. */
  noteRoot: (id: string) => string | undefined = () => this.vaultDir;

  constructor(
    private readonly store: Store,
    private readonly index: RecallIndex,
    private readonly vaultDir: string,
    private readonly settings: () => EngineSettings,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly textOf: (item: Item) => string,
  ) {}

  /** Drops cached durable-index inputs when notes or summaries changed (the engine forwards store changes). */
  noteStoreChange(ids: readonly string[], reloaded: boolean): void {
    if (!this.durable) return;
    if (reloaded || ids.some((id) => id.startsWith('vt:') || id.startsWith('pv:') || id.startsWith('gs:'))) this.durable = null;
  }

  /** Forces the next recall to re-read the long-term file (e.g. the engine just wrote it). */
  invalidateLongterm(): void {
    this.longterm = null;
  }

  /** The scope a read may see. Unknown existing conversation → E_SCOPE_UNRESOLVED (R-RECALL-7). */
  resolve(ctx: ReadContext): ResolvedContext {
    if (ctx.conversation) {
      const conv = this.store.conversations.get(ctx.conversation);
      if (conv) return { scope: { project: conv.project ?? undefined, projectType: conv.projectType ?? undefined }, conversation: conv.id };
      if (!ctx.newConversation) throw new MemoryError('E_SCOPE_UNRESOLVED', 'memory scope unresolved');
      return { scope: { project: ctx.project || undefined, projectType: ctx.projectType || undefined }, conversation: ctx.conversation };
    }
    return { scope: { project: ctx.project || undefined, projectType: ctx.projectType || undefined } };
  }

  async search(query: string, ctx: ReadContext, k?: number): Promise<SearchHit[]> {
    if (typeof query !== 'string') throw new MemoryError('E_BAD_INPUT', 'query must be text');
    const rc = this.resolve(ctx);
    const kinds = ctx.kinds?.length ? ctx.kinds : undefined;
    return this.rankedHits(query.slice(0, 1200), rc, k ?? this.settings().recallTopK, kinds);
  }

  private async rankedHits(
    query: string, rc: ResolvedContext, k: number, kinds?: readonly ItemKind[], items?: Map<string, Item>, texts?: Map<string, string>,
  ): Promise<SearchHit[]> {
    if (!query.trim()) return [];
    const s = this.settings();
    const now = this.clock.now();
    const { lang, terms } = queryTerms(query);
    const cands = await this.index.search({
      text: query, scope: rc.scope, conversation: rc.conversation, now, k, includeSecrets: s.recallIncludeSecrets,
      minVectorScore: s.recallMinScore, kinds, terms, lang,
    });
    const scored = cands.map((c) => ({
      c,
      score: scoreCandidate({
        relevance: c.relevance, kind: this.index.kindOf(c.docId), pinned: this.index.pinnedOf(c.docId),
        createdMs: this.index.createdOf(c.docId), nowMs: now, importance: this.index.importanceOf(c.docId),
        trust: this.index.trustOf(c.docId), sameConversation: this.index.conversationIs(c.docId, rc.conversation),
        sameProject: this.index.projectIs(c.docId, rc.scope.project),
      }),
    })).filter((x) => x.score > 0
      // Another conversation's working block is its scratch state, never a hit here (R-MEM-1).
      && (this.index.kindOf(x.c.docId) !== 'working' || this.index.conversationIs(x.c.docId, rc.conversation)));
    scored.sort((a, b) => b.score - a.score);
    const hits: SearchHit[] = [];
    const seenNotes = new Set<string>();
    // Rows are fetched in one query per slice of candidates (not one per hit). The first slice is exactly
    // the k hits wanted (most recalls need no more: every row read costs ~50 µs in sql.js); then k + 4.
    const fetched = items ?? new Map<string, Item>();
    const slice = Math.max(k + 4, 8);
    let lookedUp = 0; // scored[0, lookedUp) have been fetched
    for (let i = 0; i < scored.length && hits.length < k; i++) {
      const c = scored[i]!.c;
      if (i >= lookedUp) {
        lookedUp = i + (i === 0 ? k : slice);
        const want = scored.slice(i, lookedUp).map((x) => x.c.id).filter((id) => !fetched.has(id));
        if (want.length) for (const it of this.store.items.getMany(want)) fetched.set(it.id, it);
      }
      const item = fetched.get(c.id);
      if (!item || !this.rowVisible(item.id, item.meta)) continue;
      // A note imported into the raw record comes back once, as the note (R-RECALL-4).
      const noteRef = typeof item.meta.note === 'string' ? item.meta.note : null;
      const key = noteRef ?? item.id;
      if (seenNotes.has(key)) continue;
      seenNotes.add(key);
      hits.push({ id: item.id, kind: item.kind, score: round(scored[i]!.score), trust: item.trust, text: this.hitText(item, terms, texts), subkind: item.subkind, created: item.created });
    }
    return hits;
  }

  /** The recall block for one chat turn. Fail-soft: any failure gives an empty block and a reason. */
  async recall(req: RecallRequest): Promise<RecallResult> {
    const s = this.settings();
    if (!s.enabled) return { block: '', items: [], hits: [], reason: 'disabled' };
    const rc = this.resolve({ ...req, newConversation: true });
    const query = buildQuery({ message: req.message ?? '', previousUserMessages: req.previousUserMessages, title: req.title, task: req.task });
    let hits: SearchHit[] = [];
    let reason: string | undefined;
    const items = new Map<string, Item>(); // rows read for the hits, reused by the full texts below
    const texts = new Map<string, string>(); // raw messages' texts read for the hits (a blob read each), reused too
    try {
      hits = await this.rankedHits(query, rc, s.recallTopK, undefined, items, texts);
      if (hits.length === 0) reason = query.trim() ? 'nothing_found' : 'empty_query';
    } catch (e) {
      reason = 'search_failed';
      this.logger.warn('recall.failed', { error: errorCode(e) });
    }
    const own = agentFilesFor(req.agent);
    if (own.length) hits = hits.filter((h) => !own.includes(items.get(h.id)?.meta.agentFile as string));
    const canUseTools = req.canUseTools !== false;
    const budget = budgetFor(s.indexBudgetChars, req.window);
    const index = this.durableIndex(rc);
    const longterm = await this.longtermText();
    const fullCount = canUseTools ? 2 : 4;
    const fullTexts: { id: string; text: string }[] = [];
    for (const h of hits.slice(0, fullCount)) {
      try {
        const ex = await this.expandItem(h.id, rc, false, items.get(h.id), texts.get(h.id));
        fullTexts.push({ id: h.id, text: ex.text });
      } catch { /* the hit line stays */ }
    }
    const working = this.workingBlock(req.conversation);
    if (working) hits = hits.filter((h) => h.id !== working.id); // shown as its own section, first
    const block = buildRecallBlock({
      now: this.clock.now(), timeZone: this.clock.timeZone(), working, longterm, index, hits,
      fullTexts, canUseTools, budgetChars: budget,
    });
    if (!block.text && !reason) reason = budget <= 0 ? 'no_budget' : 'nothing_fits';
    if (reason) this.logger.info('recall.empty_or_partial', { reason, hits: hits.length });
    return { block: block.text, items: block.itemIds, hits, reason: block.text ? undefined : reason };
  }

  /** This conversation's live working block (R-MEM-1), if any: not expired, archived, quarantined or untrusted. */
  private workingBlock(conversation: string | undefined): { id: string; text: string } | undefined {
    if (!conversation) return undefined;
    const it = this.store.items.get(`wk:${conversation}`);
    const now = this.clock.now();
    if (!it || it.kind !== 'working' || it.archivedAt !== null || it.trust === 'quarantined' || it.untrusted) return undefined;
    if (it.expiresAt !== null && it.expiresAt <= now) return undefined;
    return it.text ? { id: it.id, text: it.text } : undefined;
  }

  /** Durable index lines: notes in scope (user, feedback first), pinned summaries, recent task summaries. */
  durableIndex(rc: ResolvedContext): IndexEntry[] {
    const s = this.settings();
    const now = this.clock.now();
    const allowed = (it: DurableRow) =>
      inScope(rc.scope, it.project, it.projectType) && this.rowVisible(it.id) && it.trust !== 'quarantined' && !it.untrusted && !it.archived &&
      !it.invalidated && (s.recallIncludeSecrets || !it.secret) && (!it.expiresAt || it.expiresAt > now);
    const { notes, summaries: recentSummaries } = this.durableInputs();
    const out: IndexEntry[] = [];
    for (const n of notes) if (allowed(n)) out.push({ id: n.id, summary: n.summary ?? n.title ?? n.id, kind: n.subkind ?? 'reference', pinned: n.pinned });
    const summaries = recentSummaries.filter((x) => allowed(x) && x.conversation !== rc.conversation);
    for (const p of summaries) if (p.pinned) out.push({ id: p.id, summary: p.summary ?? '', kind: 'summary', pinned: true });
    if (rc.scope.project) {
      const recent = summaries.filter((x) => !x.pinned && x.project === rc.scope.project).slice(0, RECENT_TASK_SUMMARIES);
      for (const r of recent) out.push({ id: r.id, summary: r.summary ?? '', kind: 'summary' });
    }
    return out;
  }

  /** Notes (in display order) and the newest summaries, read from the store once per change. */
  private durableInputs(): { notes: DurableRow[]; summaries: DurableRow[] } {
    if (this.durable) return this.durable;
    const rank = (k: string | null) => { const i = NOTE_KINDS.indexOf((k ?? 'reference') as never); return i < 0 ? 9 : i; };
    const notes = this.store.items.list({ kind: 'note' }).map(durableRow);
    notes.sort((a, b) => rank(a.subkind) - rank(b.subkind) || Number(b.pinned) - Number(a.pinned) || b.created - a.created);
    const summaries = this.store.items.list({ kind: 'summary', order: 'createdDesc', limit: DURABLE_SUMMARIES }).map(durableRow);
    // A read above may have applied other windows' records (and fired noteStoreChange): still current.
    this.durable = { notes, summaries };
    return this.durable;
  }

  /** The long-term file's capped text, re-read only when its mtime or size changed (stat ≤ once a second). */
  private async longtermText(): Promise<string> {
    const wall = Date.now(); // wall time, not the injected clock: this throttles file-system checks
    const cached = this.longterm;
    if (cached && wall - cached.checkedAt < LONGTERM_CHECK_MS) return cached.text;
    let mtimeMs = -1, size = -1;
    try {
      const st = statSync(path.join(this.vaultDir, LONGTERM_FILE));
      mtimeMs = st.mtimeMs;
      size = st.size;
    } catch { /* no long-term file yet */ }
    if (cached && cached.mtimeMs === mtimeMs && cached.size === size) {
      cached.checkedAt = wall;
      return cached.text;
    }
    let text = '';
    if (size >= 0) {
      try {
        text = (await readLongterm(this.vaultDir, { create: false })).text;
      } catch { /* unreadable: recall goes on without it */ }
    }
    this.longterm = { text, mtimeMs, size, checkedAt: wall };
    return text;
  }

  async expand(id: string, ctx: ReadContext): Promise<ExpandResult> {
    const rc = this.resolve(ctx);
    return this.expandItem(id, rc, true);
  }

  /** `known` / `knownText`: the row and (raw messages) its text, when the caller already read them. */
  private async expandItem(id: string, rc: ResolvedContext, withExtras: boolean, known?: Item, knownText?: string): Promise<ExpandResult> {
    if (typeof id !== 'string' || id.length > 1024) throw new MemoryError('E_BAD_ID', 'memory id must be text');
    const kind = kindOfId(id);
    if (!kind) throw new MemoryError('E_BAD_ID', `unknown memory id format (expected ${ID_PREFIXES_TEXT})`);
    if (kind === 'note' && !id.startsWith('pv:')) relPathOfId(id); // refuses `..`, absolute paths and hidden folders
    const item = known ?? this.store.items.get(id);
    if (!item || !this.visible(item, rc)) throw new MemoryError('E_NOT_FOUND', 'no such memory in this conversation\'s scope');
    const base = { id: item.id, kind: item.kind, trust: item.trust, sourceType: item.sourceType };
    if (kind === 'note') {
      const root = this.noteRoot(item.id);
      if (!root) throw new MemoryError('E_NOT_FOUND', 'no such memory in this conversation\'s scope');
      const abs = resolveInVault(root, item.path ?? relPathOfId(id));
      const parsed = parseNote(item.path ?? relPathOfId(id), await fsp.readFile(abs));
      const { text, truncated } = cap(parsed.body.trim() || parsed.summary);
      return { ...base, text, truncated, path: item.path ?? undefined };
    }
    if (kind === 'raw') {
      const { text, truncated } = cap(known && knownText !== undefined ? knownText : this.textOf(item));
      const res: ExpandResult = { ...base, text, truncated };
      if (withExtras && item.conversation) {
        const sum = this.store.items.get(`gs:${item.conversation}`);
        if (sum && this.visible(sum, rc)) res.conversationSummary = { id: sum.id, text: sum.text ?? '' };
      }
      return res;
    }
    if (kind === 'entity') {
      const name = item.text ?? '';
      const facts = this.store.items
        .list({ kind: 'fact', recallable: true, now: this.clock.now(), order: 'createdDesc', limit: 2000 })
        .filter((f) => this.visible(f, rc) && (f.text ?? '').toLowerCase().includes(name.toLowerCase()))
        .slice(0, 10)
        .map((f) => ({ id: f.id, text: f.text ?? '' }));
      const aliases = Array.isArray(item.meta.aliases) ? (item.meta.aliases as string[]) : [];
      return { ...base, text: name, truncated: false, entity: { name, type: String(item.meta.type ?? item.subkind ?? ''), aliases, facts } };
    }
    const { text, truncated } = cap(item.text ?? '');
    return { ...base, text, truncated, sources: withExtras ? this.store.itemSources.sourcesOf(item.id) : undefined };
  }

  /** May this conversation see this item? The same rules as the index's filter, on a row. */
  visible(item: Item, rc: ResolvedContext): boolean {
    const s = this.settings();
    if (item.trust === 'quarantined' || item.archivedAt) return false;
    if (item.secret && !s.recallIncludeSecrets) return false;
    if (item.role === 'tool' || item.role === 'thinking' || item.role === 'system') return false;
    if (item.expiresAt && item.expiresAt <= this.clock.now()) return false;
    if (!this.rowVisible(item.id, item.meta)) return false;
    return inScope(rc.scope, item.project, item.projectType);
  }

  private hitText(item: Item, terms: string[], texts?: Map<string, string>): string {
    switch (item.kind) {
      case 'raw': {
        const text = this.textOf(item);
        texts?.set(item.id, text);
        return passageAround(text, terms, HIT_TEXT_MAX);
      }
      case 'note': return clip(item.summary ?? item.text ?? '', HIT_TEXT_MAX);
      default: return clip(item.text ?? '', HIT_TEXT_MAX);
    }
  }
}

function cap(text: string): { text: string; truncated: boolean } {
  return text.length > EXPAND_MAX_CHARS ? { text: text.slice(0, EXPAND_MAX_CHARS), truncated: true } : { text, truncated: false };
}

function clip(s: string, n: number): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length <= n ? flat : flat.slice(0, n - 1) + '…';
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
