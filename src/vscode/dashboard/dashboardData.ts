// The dashboard's view model (R-UI-5), built from the engine's read-only queries (`engine.query`);
// free of `vscode` so it is unit-tested in plain Node. Read-only queries behind the dashboard: counts, pages of items, one note, the link graph.
// Invariants: nothing here writes; quarantined items only ever appear as counts; secret items appear
// only when includeSecrets is on (R-MEM-6); lists are paged; texts are cut to what a table needs.
import { readFileSync } from 'node:fs';
import { splitFrontmatter } from '../../engine/vault/noteParser';
import { resolveInVault } from '../../engine/vault/vaultLayout';
import type { MemoryEngine } from '../../engine/engine';
import { MemoryError } from '../../engine/errors';
import type { Item, ItemFilter } from '../../engine/store/repositories';
import type { ItemKind } from '../../engine/types';
import { CONSOLIDATION_THRESHOLDS as TH } from '../../engine/maintain/consolidate';
import {
  DASHBOARD_PAGE_SIZE, type ArchiveRow, type EngineCard, type GraphData, type HistogramBin, type ItemDetail, type ItemRow, type NoteDetail,
  type NoteRow, type Overview, type Page, type PageRequest, type QuarantineRowView, type ReviewEntry,
} from '../../protocol/dashboard';

/** The episodic layer (SPEC R-MEM-1): facts, conversation summaries, entities. */
export const EPISODIC_KINDS: ItemKind[] = ['fact', 'summary', 'entity'];
/** 10 bins of 0.1: salience and importance are both 0–1. */
const HISTOGRAM_BINS = 10;
/** 200 rows at most per page, whatever the webview asks: a message stays small. */
const MAX_PAGE = 200;
/** 200 chars: a table cell, not the memory itself (that is in the row detail). */
const TITLE_CHARS = 200;
/** 500 notes: beyond that a hand-written force layout in a webview stops being readable or fast. */
const GRAPH_NOTES = 500;
/** How the ready counts are meant (the overview shows it under them). */
export const CONSOLIDATION_NOTE =
  `Consolidate Now promotes recurring facts and summaries with salience ≥ ${TH.promote} to vault notes (needs a background model) ` +
  `and archives items below ${TH.demote} after ${TH.minDemoteAgeDays} idle days.`;

export interface DashboardOptions {
  includeSecrets: boolean;
  /** Promotion / demotion thresholds; default: consolidation's own (CONSOLIDATION_THRESHOLDS). */
  thresholds?: { promote: number; demote: number };
}

function cut(s: string, n = TITLE_CHARS): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > n ? one.slice(0, n - 1) + '…' : one;
}

function page(req: PageRequest | undefined): { offset: number; limit: number } {
  const offset = Number.isInteger(req?.offset) && req!.offset! >= 0 ? req!.offset! : 0;
  const limit = Number.isInteger(req?.limit) && req!.limit! > 0 ? Math.min(req!.limit!, MAX_PAGE) : DASHBOARD_PAGE_SIZE;
  return { offset, limit };
}

export class DashboardData {
  constructor(private readonly engine: MemoryEngine, private readonly opts: () => DashboardOptions) {}

  private get store() { return this.engine.query; }

  /** Quarantined items are never shown; secret ones only with includeSecrets. */
  visible(it: Item): boolean {
    if (it.trust === 'quarantined') return false;
    return !it.secret || this.opts().includeSecrets;
  }

  private titleOf(it: Item): string {
    const t = it.summary ?? it.title ?? (it.kind === 'raw' ? null : it.text) ?? it.path ?? it.id;
    return cut(t);
  }

  private row(it: Item): ItemRow {
    return {
      id: it.id, kind: it.kind, title: this.titleOf(it), created: it.created, salience: it.salience, importance: it.importance,
      invalidated: it.invalidatedAt !== null, tags: it.tags, source: it.sourceType,
    };
  }

  /** The filter that leaves out what the dashboard never lists (quarantined; secret unless includeSecrets). */
  private shown(): ItemFilter['shown'] {
    return { withSecrets: this.opts().includeSecrets };
  }

  /** One page of visible items, newest first, read and counted in the store (no full scan). */
  private pageOf<T>(filter: Omit<ItemFilter, 'shown' | 'order' | 'limit' | 'offset'>, req: PageRequest | undefined, map: (it: Item) => T): Page<T> {
    const { offset, limit } = page(req);
    const f = { ...filter, shown: this.shown() };
    const rows = this.store.items.list({ ...f, order: 'createdDesc', limit, offset }).map(map);
    return { rows, offset, total: this.store.items.count(f), pageSize: limit };
  }

  /**
   * The overview from the counts the store keeps (item_counts: grouped counts and score statistics), tag counts
   * over the tagged items only, the live working blocks and the newest ten rows: no scan of the items, so it
   * stays fast at any store size.
   */
  overview(): Overview {
    const now = this.engine.clock.now();
    const withSecrets = this.opts().includeSecrets;
    const th = this.thresholds();
    let working = 0, episodic = 0, facts = 0, invalidatedFacts = 0, vaultFiles = 0, archived = 0, quarantined = 0, secretHidden = 0;
    let bySalience = 0, byImportance = 0, sum = 0, n = 0, readyToPromote = 0, readyToDemote = 0;
    let min: number | null = null, max: number | null = null;
    const bins = new Array<number>(HISTOGRAM_BINS).fill(0);
    const bySource = new Map<string, number>();
    const groups = this.store.items.overviewGroups(['working', 'note', ...EPISODIC_KINDS, 'doc'], { withSecrets, bins: HISTOGRAM_BINS, ...th });
    for (const g of groups) {
      if (g.state === 'quarantined') { quarantined += g.n; continue; }
      if (g.state === 'secret') { secretHidden += g.n; continue; }
      if (g.state === 'archived') { archived += g.n; continue; }
      if (g.kind === 'working') continue; // counted below: expiry depends on the time
      if (g.kind === 'note') { vaultFiles += g.n; continue; }
      if (!EPISODIC_KINDS.includes(g.kind)) continue;
      episodic += g.n;
      if (g.kind === 'fact') { facts += g.n; invalidatedFacts += g.invalidated; }
      bySource.set(g.source, (bySource.get(g.source) ?? 0) + g.n);
      bySalience += g.bySalience; byImportance += g.byImportance; sum += g.sum; n += g.scored;
      readyToPromote += g.promote; readyToDemote += g.demote;
      if (g.min !== null) min = min === null ? g.min : Math.min(min, g.min);
      if (g.max !== null) max = max === null ? g.max : Math.max(max, g.max);
      if (g.bin !== null) bins[g.bin]! += g.scored;
    }
    working = this.store.items.countAlive('working', withSecrets, now);
    const raw = this.store.items.hiddenCounts('raw', withSecrets);
    quarantined += raw.quarantined; secretHidden += raw.secret; archived += raw.archived;
    const histogram: HistogramBin[] = bins.map((count, i) => ({ from: i / HISTOGRAM_BINS, to: (i + 1) / HISTOGRAM_BINS, count }));
    const basis = n === 0 ? 'none' : byImportance === 0 ? 'salience' : bySalience === 0 ? 'importance' : 'mixed';
    // The newest ten per episodic kind, each read in index order (kind, created), then merged.
    const newest = EPISODIC_KINDS
      .flatMap((kind) => this.store.items.list({ kind, archived: false, shown: this.shown(), order: 'createdDesc', limit: 10 }))
      .sort((a, b) => b.created - a.created || (a.id < b.id ? 1 : -1)).slice(0, 10);
    return {
      counts: { working, episodic, facts, invalidatedFacts, vaultFiles, archived, quarantined, secretHidden, readyToPromote, readyToDemote },
      salience: { min, max, avg: n ? Math.round((sum / n) * 1000) / 1000 : null, basis },
      histogram,
      topTags: this.store.items.tagCounts({ kind: ['working', 'note', ...EPISODIC_KINDS, 'doc'], archived: false, shown: this.shown() }, 10),
      episodicBySource: top(bySource, 20).map(([source, count]) => ({ source, count })),
      newestEpisodic: newest.map((it) => this.row(it)),
      consolidationNote: CONSOLIDATION_NOTE,
      briefing: this.briefing(),
    };
  }

  /** The newest note under reflections/ (one per day, named by the day), its body read from the file. */
  private briefing(): Overview['briefing'] {
    let latest: Item | undefined;
    this.store.items.forEach({ kind: 'note', archived: false }, (it) => {
      if (it.id.startsWith('vt:') && it.path && /^reflections\/\d{4}-\d{2}-\d{2}\.md$/.test(it.path) && it.trust !== 'quarantined' && (!latest || it.path > latest.path!)) latest = it;
    });
    if (!latest) return null;
    try {
      const text = splitFrontmatter(readFileSync(resolveInVault(this.engine.vaultDir, latest.path!), 'utf8')).body.trim();
      return { id: latest.id, day: latest.path!.slice('reflections/'.length, -3), text: text.slice(0, 8_000) };
    } catch {
      return null;
    }
  }

  private thresholds(): { promote: number; demote: number } {
    return this.opts().thresholds ?? { promote: TH.promote, demote: TH.demote };
  }

  /** The recall engine card (R-RECALL-10): counts and switches only. */
  engineCard(): EngineCard {
    const s = this.engine.status();
    return {
      enabled: s.enabled, embedder: s.embedder.id, embedderModel: s.embedder.model ?? 'off', embedderReason: s.embedder.reason,
      summariesWithVector: s.vectors.summaries, factsWithVector: s.vectors.facts, vectorLastRun: s.vectors.lastRun,
      vectorPartitions: s.vectors.partitions, rawRecord: s.rawRecord.enabled, captureToolResults: s.switches.captureToolResults,
      captureThinking: s.switches.captureThinking, includeSecrets: s.switches.includeSecrets, recallBudgetChars: s.recallBudgetChars,
      health: s.health.level,
      skips: s.skips,
      footprint: {
        memoryBytes: s.health.footprint.memoryBytes, databaseBytes: s.health.footprint.databaseBytes, keywordIndexBytes: s.health.footprint.keywordIndexBytes,
        vectorIndexBytes: s.health.footprint.vectorIndexBytes, cacheBytes: s.health.footprint.cacheBytes, diskBytes: s.health.footprint.diskBytes,
        warnBytes: s.health.warnBytes, critBytes: s.health.critBytes,
      },
    };
  }

  /** Working blocks still alive (a few dozen at most: 24 h TTL), so they are filtered here. */
  working(req?: PageRequest): Page<ItemRow> {
    const now = this.engine.clock.now();
    const { offset, limit } = page(req);
    const alive = this.store.items.list({ kind: 'working', archived: false, shown: this.shown(), order: 'createdDesc' })
      .filter((it) => it.expiresAt === null || it.expiresAt > now);
    return { rows: alive.slice(offset, offset + limit).map((it) => this.row(it)), offset, total: alive.length, pageSize: limit };
  }

  episodic(req?: PageRequest): Page<ItemRow> {
    return this.pageOf({ kind: EPISODIC_KINDS, archived: false }, req, (it) => this.row(it));
  }

  archive(req?: PageRequest): Page<ArchiveRow> {
    return this.pageOf({ kind: ['working', 'note', ...EPISODIC_KINDS, 'doc'], archived: true }, req, (it) => ({
      id: it.id, originalId: it.originalId, archivedAt: it.archivedAt, created: it.created, title: this.titleOf(it),
    }));
  }

  notes(req?: PageRequest): Page<NoteRow> {
    const p = this.pageOf({ kind: 'note', archived: false }, req, (it) => ({
      id: it.id, path: it.path ?? it.id.slice(3), title: this.titleOf(it), kind: it.subkind ?? 'reference', tags: it.tags, pinned: it.pinned,
      untrusted: it.untrusted, updated: it.updated ?? it.fileMtime,
    }));
    return p;
  }

  /** One visible item in full (its text too: the user opened it). */
  item(id: string): ItemDetail {
    const it = this.visibleItem(id);
    const sources = this.store.itemSources.sourcesOf(id);
    const conversations = new Set<string>();
    if (it.conversation) conversations.add(it.conversation);
    for (const s of this.store.items.getMany(sources)) if (s.conversation) conversations.add(s.conversation);
    const text = it.kind === 'raw' ? this.engine.query.textOf(it) : (it.text ?? '');
    return {
      ...this.row(it),
      sourceId: sources[0] ?? it.originalId ?? null,
      agent: [it.provider, it.model].filter(Boolean).join('/') || null,
      accessCount: it.accessCount, conversationCount: conversations.size, validFrom: it.validFrom, invalidatedAt: it.invalidatedAt,
      lastAccessed: it.lastAccessed, expiresAt: it.expiresAt, hasVector: this.engine.query.hasVector(id), trust: it.trust, text,
    };
  }

  /** One vault note: frontmatter, tags, links, backlinks and its Markdown (read from the file). */
  async note(id: string): Promise<NoteDetail> {
    const it = this.visibleItem(id);
    if (it.kind !== 'note') throw new MemoryError('E_BAD_ID', 'not a vault note id (expected vt:)');
    const parsed = await this.engine.query.readNote(id);
    if (!parsed) throw new MemoryError('E_NOT_FOUND', 'the note has no file');
    if (parsed.containsSecrets && !this.opts().includeSecrets) throw new MemoryError('E_REFUSED', 'the note is tagged contains-secrets');
    const backlinks = this.store.links.backlinks(id).map((l) => l.fromId)
      .filter((from) => { const src = this.store.items.get(from); return src ? this.visible(src) : false; });
    return {
      id, path: parsed.relPath, frontmatter: parsed.frontmatter, tags: parsed.tags,
      links: this.store.links.from(id).map((l) => ({ target: l.target, toId: l.toId })), backlinks: [...new Set(backlinks)],
      content: parsed.body, problems: parsed.problems.map((p) => p.message),
    };
  }

  /** Notes, their resolved links, and their tags as nodes; unresolved links point at a 'missing' node. */
  graph(limit = GRAPH_NOTES): GraphData {
    const cap = Math.max(1, Math.min(Number.isInteger(limit) ? limit : GRAPH_NOTES, GRAPH_NOTES));
    const nodes: GraphData['nodes'] = [];
    const edges: GraphData['edges'] = [];
    const noteIds = new Set<string>();
    const tagIds = new Set<string>();
    let truncated = false;
    this.store.items.forEach({ kind: 'note', order: 'id' }, (it) => {
      if (!this.visible(it) || it.archivedAt !== null) return true;
      if (noteIds.size >= cap) { truncated = true; return false; }
      noteIds.add(it.id);
      nodes.push({ id: it.id, label: cut(it.title ?? it.path?.replace(/^.*\//, '').replace(/\.md$/, '') ?? it.id, 60), type: 'note' });
      for (const t of it.tags) {
        const tid = `#${t}`;
        if (!tagIds.has(tid)) { tagIds.add(tid); nodes.push({ id: tid, label: tid, type: 'tag' }); }
        edges.push({ from: it.id, to: tid, type: 'tag' });
      }
      return true;
    });
    const missing = new Set<string>();
    for (const l of this.store.links.allFrom('vt:')) {
      if (!noteIds.has(l.fromId)) continue;
      if (l.toId && noteIds.has(l.toId)) { edges.push({ from: l.fromId, to: l.toId, type: 'link' }); continue; }
      if (l.toId) continue; // a hidden (secret / quarantined) or cut-off note: no node, no edge
      const mid = `?${l.target}`;
      if (!missing.has(mid)) { missing.add(mid); nodes.push({ id: mid, label: cut(l.target, 60), type: 'missing' }); }
      edges.push({ from: l.fromId, to: mid, type: 'link' });
    }
    return { nodes, edges, truncated };
  }

  tags(): { tag: string; count: number }[] {
    return this.store.items.tagCounts({ kind: ['note', 'working', ...EPISODIC_KINDS, 'doc'], archived: false, shown: this.shown() }, 500);
  }

  /** R-MAINT-2: the engine's review queue (near-threshold items, superseded facts, untrusted notes). */
  review(): ReviewEntry[] {
    return this.engine.reviewQueue({ includeSecrets: this.opts().includeSecrets, thresholds: this.thresholds(), limit: MAX_PAGE });
  }

  /** Quarantines with their counts and status; never the items themselves. */
  quarantines(): QuarantineRowView[] {
    return this.store.quarantines.list().map((q) => ({
      id: q.id, created: q.created, provider: q.provider, model: q.model, status: q.status, reason: q.reason, counts: q.counts,
      items: this.store.quarantines.rows(q.id).length,
    }));
  }

  private visibleItem(id: string): Item {
    if (typeof id !== 'string' || id.length > 1000) throw new MemoryError('E_BAD_ID', 'an item id is a string');
    const it = this.store.items.get(id);
    // Hidden items answer exactly like missing ones: the dashboard must not reveal that they exist.
    if (!it || !this.visible(it)) throw new MemoryError('E_NOT_FOUND', 'no such memory');
    return it;
  }
}

function top(m: Map<string, number>, n: number): [string, number][] {
  return [...m.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, n);
}
