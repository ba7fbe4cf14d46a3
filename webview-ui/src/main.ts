// Dashboard webview (R-UI-5), a browser bundle that imports only src/protocol. It posts `ready` once its
// listener is up, then asks the host for each tab's data with typed requests (ids matched to responses).
// Every piece of memory text is rendered with text nodes (dom.ts), never as HTML; colours come from VS Code's
// CSS variables only (main.css).
import './main.css';
import {
  REVIEW_ACTIONS, type DashboardApi, type DashboardMethod, type DashboardToHost, type DashboardToWebview, type ItemRow, type Page,
  type ReviewAction, type ReviewEntry,
} from '../../src/protocol/dashboard';
import { append, clear, el, fmtDate, fmtNum, svg, type Child } from './dom';
import { renderGraph } from './graph';

declare function acquireVsCodeApi(): { postMessage(m: DashboardToHost): void; getState(): unknown; setState(s: unknown): void };
const api = acquireVsCodeApi();

// ------------------------------------------------------------------ requests

let nextId = 1;
const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

function request<M extends DashboardMethod>(method: M, params: DashboardApi[M][0]): Promise<DashboardApi[M][1]> {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
    api.postMessage({ type: 'request', id, method, params } as DashboardToHost);
  });
}

// ------------------------------------------------------------------ tabs

interface Tab { id: string; label: string; render: (panel: HTMLElement) => Promise<void> }

const TABS: Tab[] = [
  { id: 'overview', label: 'Overview', render: renderOverview },
  { id: 'working', label: 'Working', render: (p) => renderItems(p, 'getWorking', 'working', 'No working-memory blocks right now.') },
  { id: 'episodic', label: 'Episodic', render: (p) => renderItems(p, 'getEpisodic', 'episodic', 'No episodic items yet: facts, summaries and entities appear after conversations.') },
  { id: 'vault', label: 'Vault files', render: renderVault },
  { id: 'archive', label: 'Archive', render: renderArchive },
  { id: 'graph', label: 'Graph', render: async (p) => { const g = await request('getGraph', {}); replace(p, renderGraph(g, openNote)); } },
  { id: 'tags', label: 'Tags', render: renderTags },
  { id: 'review', label: 'Review queue', render: renderReview },
  { id: 'quarantine', label: 'Quarantine', render: renderQuarantine },
];

const state: { tab: string; offsets: Record<string, number>; pendingNote?: string; pendingItem?: string } = { tab: 'overview', offsets: {} };
const saved = api.getState() as { tab?: string } | undefined;
if (saved?.tab && TABS.some((t) => t.id === saved.tab)) state.tab = saved.tab;

const root = document.getElementById('root')!;
const tabButtons = new Map<string, HTMLButtonElement>();
const panels = new Map<string, HTMLElement>();

function buildShell(): void {
  clear(root);
  root.removeAttribute('aria-live');
  const list = el('div', { role: 'tablist', 'aria-label': 'Dashboard sections', class: 'tabs' });
  for (const t of TABS) {
    const b = el('button', {
      role: 'tab', id: `tab-${t.id}`, 'aria-controls': `panel-${t.id}`, class: 'tab', type: 'button',
      onclick: () => select(t.id, true),
    }, t.label);
    b.addEventListener('keydown', onTabKey);
    tabButtons.set(t.id, b);
    list.appendChild(b);
    const panel = el('section', { role: 'tabpanel', id: `panel-${t.id}`, 'aria-labelledby': `tab-${t.id}`, tabindex: 0, class: 'panel' });
    panels.set(t.id, panel);
  }
  append(root, [el('h1', {}, 'Memory'), list, ...panels.values()]);
}

/** Roving tabindex (WAI-ARIA tabs): arrows, Home and End move focus and select. */
function onTabKey(ev: KeyboardEvent): void {
  const i = TABS.findIndex((t) => t.id === state.tab);
  const n = TABS.length;
  const to = ev.key === 'ArrowRight' ? (i + 1) % n : ev.key === 'ArrowLeft' ? (i - 1 + n) % n : ev.key === 'Home' ? 0 : ev.key === 'End' ? n - 1 : -1;
  if (to < 0) return;
  ev.preventDefault();
  select(TABS[to]!.id, true);
}

function select(id: string, focus: boolean): void {
  state.tab = id;
  api.setState({ tab: id });
  for (const t of TABS) {
    const on = t.id === id;
    const b = tabButtons.get(t.id)!;
    b.setAttribute('aria-selected', String(on));
    b.tabIndex = on ? 0 : -1;
    panels.get(t.id)!.hidden = !on;
  }
  if (focus) tabButtons.get(id)!.focus();
  void load(id);
}

async function load(id: string): Promise<void> {
  const tab = TABS.find((t) => t.id === id)!;
  const panel = panels.get(id)!;
  panel.setAttribute('aria-busy', 'true');
  if (!panel.firstChild) panel.appendChild(el('p', { class: 'muted' }, 'Loading…'));
  try {
    await tab.render(panel);
    api.postMessage({ type: 'rendered', tab: id });
  } catch (e) {
    replace(panel, el('p', { class: 'error', role: 'alert' }, (e as Error).message));
  } finally {
    panel.removeAttribute('aria-busy');
    panel.dataset.loaded = 'true';
  }
}

function replace(panel: HTMLElement, ...children: Child[]): void {
  clear(panel);
  append(panel, children);
}

// ------------------------------------------------------------------ renderers

function card(title: string, ...children: Child[]): HTMLElement {
  return el('section', { class: 'card', 'aria-label': title }, el('h2', {}, title), ...children);
}

function counter(id: string, label: string, value: number | string | null, note?: string): HTMLElement {
  return el('div', { class: 'counter', id: `count-${id}`, title: note ?? null },
    el('span', { class: 'value' }, value === null ? '0' : String(value)), el('span', { class: 'label' }, label + (note ? ' *' : '')));
}

function table(headers: string[], rows: Child[][], opts: { onOpen?: (i: number) => void; caption?: string } = {}): HTMLElement {
  const t = el('table', {}, opts.caption ? el('caption', {}, opts.caption) : null,
    el('thead', {}, el('tr', {}, ...headers.map((h) => el('th', { scope: 'col' }, h)))));
  const body = el('tbody');
  rows.forEach((cells, i) => {
    const open = opts.onOpen;
    const tr = el('tr', open ? {
      tabindex: 0, class: 'clickable', onclick: () => open(i),
      onkeydown: (ev: Event) => { const k = (ev as KeyboardEvent).key; if (k === 'Enter' || k === ' ') { ev.preventDefault(); open(i); } },
    } : {}, ...cells.map((c) => el('td', {}, c)));
    body.appendChild(tr);
  });
  t.appendChild(body);
  return t;
}

function tagList(tags: string[]): HTMLElement {
  return el('span', { class: 'tags' }, ...tags.map((t) => el('span', { class: 'tag' }, `#${t}`)));
}

function pager<T>(p: Page<T>, key: string, reload: () => void): HTMLElement {
  const from = p.total ? p.offset + 1 : 0;
  const to = p.offset + p.rows.length;
  const go = (offset: number) => { state.offsets[key] = offset; reload(); };
  return el('div', { class: 'pager' },
    el('button', { type: 'button', disabled: p.offset <= 0, onclick: () => go(Math.max(0, p.offset - p.pageSize)) }, 'Previous'),
    el('span', {}, `${from}–${to} of ${p.total}`),
    el('button', { type: 'button', disabled: to >= p.total, onclick: () => go(p.offset + p.pageSize) }, 'Next'));
}

function histogram(bins: { from: number; to: number; count: number }[], basis: string): HTMLElement {
  const w = 320, h = 120, max = Math.max(1, ...bins.map((b) => b.count));
  const bw = w / Math.max(1, bins.length);
  const chart = svg('svg', { viewBox: `0 0 ${w} ${h + 16}`, class: 'histogram', role: 'img',
    'aria-label': `${basis} histogram: ${bins.map((b) => `${b.from.toFixed(1)}–${b.to.toFixed(1)}: ${b.count}`).join(', ')}` });
  bins.forEach((b, i) => {
    const bh = (b.count / max) * h;
    chart.appendChild(svg('rect', { x: (i * bw + 2).toFixed(1), y: (h - bh).toFixed(1), width: (bw - 4).toFixed(1), height: bh.toFixed(1), class: 'bar' },
      svg('title', {}, `${b.from.toFixed(1)}–${b.to.toFixed(1)}: ${b.count}`)));
    if (i % 2 === 0) chart.appendChild(svg('text', { x: (i * bw + 2).toFixed(1), y: h + 12, class: 'axis' }, b.from.toFixed(1)));
  });
  return chart as unknown as HTMLElement;
}

async function renderOverview(panel: HTMLElement): Promise<void> {
  const [o, e, agents, team] = await Promise.all([request('getOverview', {}), request('getEngine', {}), request('getAgents', {}), request('getProjectVault', {})]);
  const c = o.counts;
  const consolidation = o.consolidationNote || undefined;
  const basis = o.salience.basis === 'importance' ? 'Importance (no salience yet)' : o.salience.basis === 'mixed' ? 'Salience (importance where unset)' : 'Salience';
  replace(panel,
    el('div', { class: 'counters' },
      counter('working', 'working blocks', c.working),
      counter('episodic', 'episodic items', c.episodic),
      counter('facts', 'facts', c.facts),
      counter('invalidated', 'invalidated facts', c.invalidatedFacts),
      counter('vault', 'vault files', c.vaultFiles),
      counter('archived', 'archived', c.archived),
      counter('promote', 'ready to promote', c.readyToPromote, consolidation),
      counter('demote', 'ready to demote', c.readyToDemote, consolidation),
      counter('quarantined', 'quarantined (hidden)', c.quarantined),
      c.secretHidden ? counter('secret', 'secret (hidden)', c.secretHidden) : null),
    consolidation ? el('p', { class: 'muted', id: 'consolidation-note' }, `* ${consolidation}`) : null,
    o.briefing ? el('section', { class: 'card briefing', id: 'briefing-card', 'aria-label': `Morning briefing ${o.briefing.day}` },
      el('h2', {}, `Morning briefing — ${o.briefing.day}`), el('pre', { class: 'briefing-text' }, o.briefing.text)) : null,
    el('div', { class: 'cards' },
      card(`${basis}`,
        el('p', {}, `min ${fmtNum(o.salience.min)} · avg ${fmtNum(o.salience.avg)} · max ${fmtNum(o.salience.max)}`),
        histogram(o.histogram, basis)),
      card('Recall engine', engineList(e)),
      card('Agents', agentList(agents)),
      card('Project vault', projectVaultCard(team)),
      card('Top tags', o.topTags.length ? el('ul', { class: 'plain' }, ...o.topTags.map((t) => el('li', {}, el('span', { class: 'tag' }, `#${t.tag}`), ` ${t.count}`))) : el('p', { class: 'muted' }, 'No tags yet.')),
      card('Episodic by source', o.episodicBySource.length ? el('ul', { class: 'plain' }, ...o.episodicBySource.map((s) => el('li', {}, `${s.source}: ${s.count}`))) : el('p', { class: 'muted' }, 'Nothing yet.'))),
    card('Newest episodic items', o.newestEpisodic.length
      ? table(['Created', 'Kind', 'Title', 'Salience'], o.newestEpisodic.map((r) => [fmtDate(r.created), r.kind, r.title, fmtNum(r.salience ?? r.importance)]),
        { onOpen: (i) => { state.offsets.episodic = 0; state.pendingItem = o.newestEpisodic[i]!.id; select('episodic', true); } })
      : el('p', { class: 'muted' }, 'No episodic items yet.')));
}

function skipsText(skips: Record<string, number>): string {
  const rows = Object.entries(skips).filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return rows.length ? `${rows.reduce((n, [, v]) => n + v, 0)} messages (${rows.map(([k, v]) => `${k} ${v}`).join(', ')})` : 'none';
}

function fmtBytes(n: number): string {
  if (n >= 1048576) return `${(n / 1048576).toFixed(1)} MB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KB`;
  return `${n} bytes`;
}

/** The repository's project vault (issue #15): counts, agent files, flagged notes by path (never their text). */
function projectVaultCard(v: DashboardApi['getProjectVault'][1]): HTMLElement {
  if (v.state !== 'attached') return el('p', { class: 'muted', id: 'project-vault-off' }, v.sentence);
  const rows: [string, string][] = [
    ['Folder', `${v.folder ?? ''}/`],
    ['Notes', String(v.notes ?? 0)],
    ['Yours', String(v.owner ?? 0)],
    ['From teammates (peer)', String(v.peer ?? 0)],
    ['Flagged (never recalled)', String(v.flagged ?? 0)],
    ['Agent files', v.agentFiles?.length ? v.agentFiles.join(', ') : 'none'],
    ['Propose project notes', v.proposeNotes ? 'on' : 'off'],
  ];
  return el('div', { id: 'project-vault' },
    el('dl', { class: 'kv' }, ...rows.flatMap(([k, val]) => [el('dt', {}, k), el('dd', {}, val)])),
    v.flaggedNotes?.length ? el('ul', { class: 'plain', id: 'project-vault-flagged' }, ...v.flaggedNotes.map((f) => el('li', {}, `⚠ ${f.relPath} — ${f.verdict} (${f.detector})`))) : null);
}

/** Connected agents (Memory: Connect Agents): hooks with their last recorded turn, MCP servers registered. */
function agentList(rows: DashboardApi['getAgents'][1]): HTMLElement {
  const on = rows.filter((r) => r.connected);
  if (!on.length) return el('p', { class: 'muted', id: 'agents-none' }, 'No agents connected. Run "Memory: Connect Agents…" to give Copilot\'s agent, Copilot CLI or Claude Code this memory.');
  return el('ul', { class: 'plain', id: 'agents-list' }, ...on.map((r) => el('li', {},
    el('strong', {}, r.name), ' — ',
    r.kind === 'mcp' ? 'memory tools (MCP)' : r.lastRecordedAt ? `${r.turns} turn${r.turns === 1 ? '' : 's'} recorded, last ${fmtDate(r.lastRecordedAt)}` : 'no turn recorded yet')));
}

function engineList(e: DashboardApi['getEngine'][1]): HTMLElement {
  const on = (b: boolean) => (b ? 'on' : 'off');
  const rows: [string, string][] = [
    ['Memory', on(e.enabled)],
    ['Embedder', `${e.embedder} (${e.embedderReason})`],
    ['Model', e.embedderModel],
    ['Summaries with a vector', e.summariesWithVector],
    ['Facts with a vector', e.factsWithVector],
    ['Vector worker last ran', e.vectorLastRun ? fmtDate(Date.parse(e.vectorLastRun)) : 'not yet'],
    ['Project partitions with vectors', String(e.vectorPartitions)],
    ['Raw record', on(e.rawRecord)],
    ['Capture tool results', on(e.captureToolResults)],
    ['Capture thinking', on(e.captureThinking)],
    ['Include secrets', on(e.includeSecrets)],
    ['Recall budget', `${e.recallBudgetChars} chars`],
    ['Save filter skipped', skipsText(e.skips)],
    ['Health', `${e.health} (warning at ${fmtBytes(e.footprint.warnBytes)}, critical at ${fmtBytes(e.footprint.critBytes)} in RAM)`],
    ['Memory in RAM', `${fmtBytes(e.footprint.memoryBytes)} — what health rates: the parts below`],
    ['Database (sql.js heap and in-memory file)', fmtBytes(e.footprint.databaseBytes)],
    ['Keyword index', fmtBytes(e.footprint.keywordIndexBytes)],
    ['Vector index', fmtBytes(e.footprint.vectorIndexBytes)],
    ['Caches (item metadata, texts waiting for a vector)', fmtBytes(e.footprint.cacheBytes)],
    ['Store on disk (database, journal, saved index and vectors)', fmtBytes(e.footprint.diskBytes)],
  ];
  return el('dl', { class: 'kv', id: 'engine-card' }, ...rows.flatMap(([k, v]) => [el('dt', {}, k), el('dd', {}, v)]));
}

async function renderItems(panel: HTMLElement, method: 'getWorking' | 'getEpisodic', key: string, empty: string): Promise<void> {
  const p = await request(method, { offset: state.offsets[key] ?? 0 });
  const detail = el('div', { class: 'detail', id: `${key}-detail` });
  const rows = p.rows as ItemRow[];
  replace(panel,
    rows.length ? table(['Created', 'Kind', 'Title', 'Salience', 'Invalidated', 'Tags'],
      rows.map((r) => [fmtDate(r.created), r.kind, r.title, fmtNum(r.salience ?? r.importance), r.invalidated ? 'yes' : '', tagList(r.tags)]),
      { onOpen: (i) => void showItemDetail(rows[i]!.id, detail), caption: `${p.total} items — Enter opens one` })
      : el('p', { class: 'muted' }, empty),
    p.total > p.pageSize ? pager(p, key, () => void load(key)) : null,
    detail);
  const want = key === 'episodic' ? state.pendingItem : undefined;
  if (want) { state.pendingItem = undefined; await showItemDetail(want, detail); }
}

async function showItemDetail(id: string, target: HTMLElement): Promise<void> {
  let box = target.classList.contains('detail') ? target : target.querySelector<HTMLElement>('.detail');
  if (!box) { box = el('div', { class: 'detail' }); target.appendChild(box); }
  const d = await request('getItem', { id });
  const rows: [string, Child][] = [
    ['Id', el('code', {}, d.id)], ['Kind', d.kind], ['Salience', fmtNum(d.salience)], ['Importance', fmtNum(d.importance)],
    ['Invalidated', d.invalidated ? 'yes' : 'no'], ['Source', d.source ?? '—'], ['Source id', d.sourceId ?? '—'], ['Agent', d.agent ?? '—'],
    ['Trust', d.trust], ['Accessed', `${d.accessCount} times`], ['Conversations', String(d.conversationCount)],
    ['Valid from', fmtDate(d.validFrom)], ['Invalidated at', fmtDate(d.invalidatedAt)], ['Created', fmtDate(d.created)],
    ['Last accessed', fmtDate(d.lastAccessed)], ['Has vector', d.hasVector ? 'yes' : 'no'], ['Tags', tagList(d.tags)],
  ];
  replace(box, el('h2', {}, d.title), el('dl', { class: 'kv' }, ...rows.flatMap(([k, v]) => [el('dt', {}, k), el('dd', {}, v)])),
    el('pre', { class: 'text' }, d.text));
  box.tabIndex = -1;
  box.focus();
}

function openNote(id: string): void {
  state.pendingNote = id;
  select('vault', true);
}

async function renderVault(panel: HTMLElement): Promise<void> {
  const p = await request('getNotes', { offset: state.offsets.vault ?? 0 });
  const detail = el('div', { class: 'detail', id: 'note-detail' });
  replace(panel,
    p.rows.length ? table(['Path', 'Kind', 'Summary', 'Tags', 'Pinned'], p.rows.map((r) => [r.path, r.kind, r.title, tagList(r.tags), r.pinned ? 'pinned' : '']),
      { onOpen: (i) => void showNote(p.rows[i]!.id, detail), caption: `${p.total} notes — Enter opens one` })
      : el('p', { class: 'muted' }, 'No notes in the vault yet.'),
    p.total > p.pageSize ? pager(p, 'vault', () => void load('vault')) : null,
    detail);
  const want = state.pendingNote;
  state.pendingNote = undefined;
  if (want) await showNote(want, detail);
}

async function showNote(id: string, box: HTMLElement): Promise<void> {
  let n;
  try {
    n = await request('getNote', { id });
  } catch (e) {
    replace(box, el('p', { class: 'error', role: 'alert' }, (e as Error).message));
    return;
  }
  const links = n.links.map((l) => l.toId
    ? el('li', {}, el('button', { type: 'button', class: 'link', onclick: () => void showNote(l.toId!, box) }, l.target))
    : el('li', { class: 'missing' }, `${l.target} (no such note)`));
  const backlinks = n.backlinks.map((b) => el('li', {}, el('button', { type: 'button', class: 'link', onclick: () => void showNote(b, box) }, b)));
  replace(box,
    el('h2', {}, n.path),
    n.problems.length ? el('ul', { class: 'error' }, ...n.problems.map((p) => el('li', {}, p))) : null,
    el('h3', {}, 'Frontmatter'), el('pre', { class: 'text' }, Object.keys(n.frontmatter).length ? JSON.stringify(n.frontmatter, null, 2) : '(none)'),
    el('h3', {}, 'Tags'), n.tags.length ? tagList(n.tags) : el('p', { class: 'muted' }, 'none'),
    el('h3', {}, 'Links'), links.length ? el('ul', { class: 'plain' }, ...links) : el('p', { class: 'muted' }, 'none'),
    el('h3', {}, 'Backlinks'), backlinks.length ? el('ul', { class: 'plain' }, ...backlinks) : el('p', { class: 'muted' }, 'none'),
    el('h3', {}, 'Content'), el('pre', { class: 'text' }, n.content));
  box.tabIndex = -1;
  box.focus();
}

async function renderArchive(panel: HTMLElement): Promise<void> {
  const p = await request('getArchive', { offset: state.offsets.archive ?? 0 });
  replace(panel,
    p.rows.length ? table(['Archived', 'Original date', 'Id', 'Original id', 'Title'],
      p.rows.map((r) => [fmtDate(r.archivedAt), fmtDate(r.created), el('code', {}, r.id), r.originalId ? el('code', {}, r.originalId) : '—', r.title]))
      : el('p', { class: 'muted' }, 'The archive is empty: consolidation moves low-salience items here once it exists.'),
    p.total > p.pageSize ? pager(p, 'archive', () => void load('archive')) : null);
}

async function renderTags(panel: HTMLElement): Promise<void> {
  const tags = await request('getTags', {});
  replace(panel, tags.length ? table(['Tag', 'Items'], tags.map((t) => [el('span', { class: 'tag' }, `#${t.tag}`), String(t.count)]))
    : el('p', { class: 'muted' }, 'No tags yet.'));
}

async function renderReview(panel: HTMLElement, status = ''): Promise<void> {
  const list = await request('getReview', {});
  const label = { 'near-threshold': 'Near a threshold', 'invalidated-conflict': 'Superseded fact', 'untrusted-note': 'Untrusted note' } as const;
  const names: Record<ReviewAction, string> = { keep: 'Keep', edit: 'Edit', forget: 'Forget…', promote: 'Promote now' };
  const line = el('p', { class: 'muted', id: 'review-status', role: 'status', 'aria-live': 'polite' }, status);
  // Real buttons: Tab reaches each, Enter or Space runs it; the host does the work and the table is redrawn.
  const act = async (id: string, action: ReviewAction) => {
    line.textContent = `${names[action]}: ${id}…`;
    try {
      const r = await request('reviewAction', { id, action });
      await renderReview(panel, r.message);
      panel.querySelector<HTMLElement>('#review-status')?.focus();
      api.postMessage({ type: 'rendered', tab: 'review' });
    } catch (e) {
      line.textContent = (e as Error).message;
    }
  };
  const actions = (r: ReviewEntry) => el('span', { class: 'actions' }, ...REVIEW_ACTIONS
    .filter((a) => !(a === 'promote' && r.id.startsWith('vt:')))
    .map((a) => el('button', { type: 'button', class: `review-${a}`, 'data-id': r.id, 'aria-label': `${names[a]} ${r.id}`, onclick: () => void act(r.id, a) }, names[a])));
  replace(panel,
    el('p', { class: 'muted' }, 'Items near a promotion or demotion threshold, facts replaced by a conflicting one, and notes flagged untrusted. Keep pins an item and resets its decay; Edit opens it as a vault note; Forget asks first; Promote now makes it a vault note.'),
    line,
    list.length ? table(['Reason', 'Id', 'Title', 'Detail', 'Actions'], list.map((r) => [label[r.reason], el('code', {}, r.id), r.title, r.detail, actions(r)]))
      : el('p', {}, 'Nothing to review.'));
  line.tabIndex = -1;
}

async function renderQuarantine(panel: HTMLElement): Promise<void> {
  const qs = await request('getQuarantines', {});
  replace(panel,
    el('p', { class: 'muted' }, 'Quarantined items are kept but never recalled; they are shown here as counts only.'),
    qs.length ? table(['Id', 'Created', 'Provider / model', 'Status', 'Items', 'Counts'],
      qs.map((q) => [el('code', {}, q.id), fmtDate(q.created), [q.provider, q.model].filter(Boolean).join(' / ') || '—', q.status, String(q.items),
        Object.entries(q.counts).map(([k, v]) => `${k} ${v}`).join(', ') || '—']))
      : el('p', {}, 'No quarantines.'));
}

// ------------------------------------------------------------------ messages

window.addEventListener('message', (ev: MessageEvent<DashboardToWebview>) => {
  const m = ev.data;
  if (!m || typeof m !== 'object') return;
  if (m.type === 'init') {
    buildShell();
    select(state.tab, false);
  } else if (m.type === 'changed') {
    if (panels.size) void load(state.tab);
  } else if (m.type === 'response') {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (m.ok) p.resolve(m.result);
    else p.reject(new Error(m.error.message));
  }
});

// Last: the listener above is in place before the host hears from us.
api.postMessage({ type: 'ready' });
