// Dashboard messages (R-UI-5), declared once for the extension host and the webview bundle.
// The webview posts `ready` first; the host answers nothing before that. Every other webview message
// is a request with an id; the host answers with exactly one response carrying the same id.
// Plain data only (no `vscode`, DOM or Node imports): memory text in here is rendered as text, never HTML.

/** One page of a long list; `total` counts every matching row, `offset` is where this page starts. */
export interface Page<T> { rows: T[]; offset: number; total: number; pageSize: number }

export interface PageRequest { offset?: number; limit?: number }

/** 50 rows: a screenful of a table; larger lists are paged (the webview asks for the next page). */
export const DASHBOARD_PAGE_SIZE = 50;

export interface HistogramBin { from: number; to: number; count: number }

export interface ItemRow {
  id: string;
  kind: string;
  /** Summary, title or the first line of the text: at most 200 characters. */
  title: string;
  created: number;
  salience: number | null;
  importance: number | null;
  invalidated: boolean;
  tags: string[];
  source: string | null;
}

export interface Overview {
  counts: {
    working: number;
    episodic: number;
    facts: number;
    invalidatedFacts: number;
    vaultFiles: number;
    archived: number;
    /** null until consolidation exists (R-MAINT-1): nothing decides promotion or demotion yet. */
    readyToPromote: number | null;
    readyToDemote: number | null;
    /** Items hidden from every list: quarantined (counted only) and secret (unless includeSecrets). */
    quarantined: number;
    secretHidden: number;
  };
  /** Over episodic items: salience where set, else importance (`basis` says which were used). */
  salience: { min: number | null; avg: number | null; max: number | null; basis: 'salience' | 'importance' | 'mixed' | 'none' };
  histogram: HistogramBin[];
  topTags: { tag: string; count: number }[];
  episodicBySource: { source: string; count: number }[];
  newestEpisodic: ItemRow[];
  consolidationNote: string;
  /** The latest morning briefing (R-MAINT-5): its note id, day and Markdown body (shown as text). */
  briefing: { id: string; day: string; text: string } | null;
}

export interface EngineCard {
  enabled: boolean;
  embedder: string;
  embedderModel: string;
  embedderReason: string;
  summariesWithVector: string;
  factsWithVector: string;
  vectorLastRun: string | null;
  vectorPartitions: number;
  rawRecord: boolean;
  captureToolResults: boolean;
  captureThinking: boolean;
  includeSecrets: boolean;
  recallBudgetChars: number;
  /** ok / warn / critical, rating `footprint.memoryBytes` against the two thresholds (R-MAINT-3). */
  health: string;
  /** Messages the save filter skipped, by rule (R-WRITE-2): length_floor, dedup, echo, … */
  skips: Record<string, number>;
  /** What memory itself holds (bytes): RAM by part, and the store folder on disk. */
  footprint: {
    memoryBytes: number; databaseBytes: number; keywordIndexBytes: number; vectorIndexBytes: number; cacheBytes: number;
    diskBytes: number; warnBytes: number; critBytes: number;
  };
}

export interface ItemDetail extends ItemRow {
  sourceId: string | null;
  agent: string | null;
  accessCount: number;
  conversationCount: number;
  validFrom: number | null;
  invalidatedAt: number | null;
  lastAccessed: number | null;
  expiresAt: number | null;
  hasVector: boolean;
  trust: string;
  text: string;
}

export interface NoteRow { id: string; path: string; title: string; kind: string; tags: string[]; pinned: boolean; untrusted: boolean; updated: number | null }

export interface NoteDetail {
  id: string;
  path: string;
  frontmatter: Record<string, unknown>;
  tags: string[];
  links: { target: string; toId: string | null }[];
  backlinks: string[];
  content: string;
  problems: string[];
}

export interface ArchiveRow { id: string; originalId: string | null; archivedAt: number | null; created: number; title: string }

export interface GraphData {
  nodes: { id: string; label: string; type: 'note' | 'tag' | 'missing' }[];
  edges: { from: string; to: string; type: 'link' | 'tag' }[];
  /** True when the graph was cut to its first `limit` notes. */
  truncated: boolean;
}

export interface ReviewEntry { id: string; reason: 'near-threshold' | 'invalidated-conflict' | 'untrusted-note'; title: string; detail: string }

/** What the review queue can do with an entry (R-MAINT-2): the engine does the work, the table refreshes. */
export type ReviewAction = 'keep' | 'edit' | 'forget' | 'promote';
export const REVIEW_ACTIONS: readonly ReviewAction[] = ['keep', 'edit', 'forget', 'promote'];

export interface ReviewActionResult {
  id: string;
  action: ReviewAction;
  /** false: nothing changed (the user did not confirm the forget). */
  done: boolean;
  /** One sentence for the table's status line (ids only, no memory text). */
  message: string;
  /** The note created or opened (edit, promote). */
  noteId?: string;
}

export interface QuarantineRowView { id: string; created: number; provider: string | null; model: string | null; status: string; reason: string | null; counts: Record<string, number>; items: number }

/** One agent connection (Memory: Connect Agents): hooks record turns; an MCP server gives the memory tools. */
export interface AgentRowView {
  /** What is connected, e.g. "Copilot (VS Code)", "Claude Code MCP". */
  name: string;
  kind: 'hooks' | 'mcp';
  connected: boolean;
  /** Epoch ms of the last turn its hooks recorded (hooks only). */
  lastRecordedAt: number | null;
  turns: number;
}

/** The repository's project vault (issue #15) as the dashboard shows it: counts, never note text. */
export interface ProjectVaultView {
  state: 'attached' | 'off' | 'failed';
  /** One sentence: the counts, or why there is no project vault (Restricted Mode, no folder, …). */
  sentence: string;
  folder?: string;
  notes?: number;
  owner?: number;
  peer?: number;
  flagged?: number;
  agentFiles?: string[];
  proposeNotes?: boolean;
  /** Flagged notes: path and why (never their text). */
  flaggedNotes?: { relPath: string; verdict: string; detector: string }[];
}

/** Request name → [params, result]. The single source of both sides' types. */
export interface DashboardApi {
  getOverview: [Record<string, never>, Overview];
  getEngine: [Record<string, never>, EngineCard];
  getAgents: [Record<string, never>, AgentRowView[]];
  getProjectVault: [Record<string, never>, ProjectVaultView];
  getWorking: [PageRequest, Page<ItemRow>];
  getEpisodic: [PageRequest, Page<ItemRow>];
  getItem: [{ id: string }, ItemDetail];
  getNotes: [PageRequest, Page<NoteRow>];
  getNote: [{ id: string }, NoteDetail];
  getArchive: [PageRequest, Page<ArchiveRow>];
  getGraph: [{ limit?: number }, GraphData];
  getTags: [Record<string, never>, { tag: string; count: number }[]];
  getReview: [Record<string, never>, ReviewEntry[]];
  getQuarantines: [Record<string, never>, QuarantineRowView[]];
  reviewAction: [{ id: string; action: ReviewAction }, ReviewActionResult];
}

export type DashboardMethod = keyof DashboardApi;

export type DashboardRequest = { [M in DashboardMethod]: { type: 'request'; id: number; method: M; params: DashboardApi[M][0] } }[DashboardMethod];

/** `rendered`: a tab finished drawing its data (tests and screenshots wait on it; carries no data). */
export type DashboardToHost = { type: 'ready' } | { type: 'rendered'; tab: string } | DashboardRequest;

export type DashboardResponse =
  | { [M in DashboardMethod]: { type: 'response'; id: number; method: M; ok: true; result: DashboardApi[M][1] } }[DashboardMethod]
  | { type: 'response'; id: number; method: DashboardMethod; ok: false; error: { code: string; message: string } };

/** `changed`: memory changed; the webview re-asks for what it shows. */
export type DashboardToWebview = { type: 'init'; version: 1 } | { type: 'changed' } | DashboardResponse;

export const DASHBOARD_METHODS: readonly DashboardMethod[] = [
  'getOverview', 'getEngine', 'getAgents', 'getProjectVault', 'getWorking', 'getEpisodic', 'getItem', 'getNotes', 'getNote', 'getArchive', 'getGraph', 'getTags',
  'getReview', 'getQuarantines', 'reviewAction',
];

/** Narrows an untrusted message from the webview; anything else is refused (and logged by the host). */
export function isDashboardToHost(m: unknown): m is DashboardToHost {
  if (!m || typeof m !== 'object') return false;
  const o = m as Record<string, unknown>;
  if (o.type === 'ready') return true;
  if (o.type === 'rendered') return typeof o.tab === 'string' && o.tab.length <= 40;
  return o.type === 'request' && typeof o.id === 'number' && Number.isInteger(o.id)
    && typeof o.method === 'string' && (DASHBOARD_METHODS as readonly string[]).includes(o.method)
    && (o.params === undefined || (typeof o.params === 'object' && o.params !== null));
}
