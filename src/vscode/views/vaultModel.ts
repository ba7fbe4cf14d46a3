// The Vault tree's shape as plain data (no `vscode` import, so it is unit-testable): folders from
// note paths, notes labelled by summary, daily logs grouped by month, the long-term file first.
// Invariants: hidden paths (`.quarantine/`, any `.x/`) never appear; order is stable — long-term
// file, the standard folders in SPEC order, other folders A→Z, then logs newest month first.
import { LONGTERM_FILE, NOTE_ID_PREFIX, VAULT_DIRS, isHiddenRelPath } from '../../engine/vault/vaultLayout';

export interface NoteRow {
  id: string;
  path: string;
  summary: string;
  kind: string;
  trust: string;
  tags: readonly string[];
  pinned: boolean;
  /** Project vault notes (issue #15): the file's absolute path, its git author, uncommitted, the gate's flag. */
  project?: { file: string; author?: string; uncommitted: boolean; flagged?: { verdict: string; detector: string } };
}

/** The project vault section (issue #15): its label and its notes. */
export interface ProjectSection {
  label: string;
  /** One line under the label (counts). */
  description: string;
  notes: readonly NoteRow[];
}

export type VaultNode =
  | { type: 'longterm'; id: string; relPath: string; label: string }
  | { type: 'folder'; id: string; relPath: string; label: string; children: VaultNode[] }
  | { type: 'note'; id: string; relPath: string; label: string; note: NoteRow }
  | { type: 'logs'; id: string; relPath: string; label: string; children: VaultNode[] }
  | { type: 'month'; id: string; relPath: string; label: string; children: VaultNode[]; newest: boolean }
  | { type: 'log'; id: string; relPath: string; label: string; day: string }
  | { type: 'project'; id: string; relPath: string; label: string; description: string; children: VaultNode[] };

/** Top-level folders in the order SPEC R-UI-3 lists them. */
const FOLDER_ORDER: readonly string[] = [VAULT_DIRS.semantic, VAULT_DIRS.procedural, VAULT_DIRS.projects, VAULT_DIRS.projectTypes];

function folderRank(name: string): number {
  const i = FOLDER_ORDER.indexOf(name);
  return i < 0 ? FOLDER_ORDER.length : i;
}

const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });

function sortNodes(nodes: VaultNode[], topLevel: boolean): VaultNode[] {
  const folders = nodes.filter((n) => n.type === 'folder');
  const notes = nodes.filter((n) => n.type === 'note');
  folders.sort((a, b) => (topLevel ? folderRank(a.label) - folderRank(b.label) : 0) || collator.compare(a.label, b.label));
  notes.sort((a, b) => collator.compare(a.label, b.label) || collator.compare(a.relPath, b.relPath));
  for (const f of folders) if (f.type === 'folder') f.children = sortNodes(f.children, false);
  return [...folders, ...notes];
}

/** Folders and notes of `notes` (paths relative to their vault), ids prefixed so two vaults never collide. */
function noteNodes(notes: readonly NoteRow[], idPrefix: string): VaultNode[] {
  const top: VaultNode[] = [];
  const folders = new Map<string, Extract<VaultNode, { type: 'folder' }>>();
  const folderFor = (dir: string): VaultNode[] => {
    if (!dir) return top;
    const existing = folders.get(dir);
    if (existing) return existing.children;
    const slash = dir.lastIndexOf('/');
    const parent = folderFor(slash < 0 ? '' : dir.slice(0, slash));
    const node = { type: 'folder' as const, id: `${idPrefix}folder:${dir}`, relPath: dir, label: dir.slice(slash + 1), children: [] as VaultNode[] };
    folders.set(dir, node);
    parent.push(node);
    return node.children;
  };
  for (const n of notes) {
    if (!n.path || isHiddenRelPath(n.path) || n.path === LONGTERM_FILE || n.path.startsWith(`${VAULT_DIRS.logs}/`)) continue;
    const slash = n.path.lastIndexOf('/');
    folderFor(slash < 0 ? '' : n.path.slice(0, slash)).push({ type: 'note', id: `${idPrefix}${n.id}`, relPath: n.path, label: n.summary || baseName(n.path), note: n });
  }
  return sortNodes(top, true);
}

/**
 * Builds the root nodes. `notes` are the indexed notes (any order), `logDays` the `YYYY-MM-DD`
 * of the daily log files, `hasLongterm` whether `longterm.md` exists, `project` the project vault section
 * (shown right after the long-term file when a project vault is attached).
 */
export function buildVaultTree(notes: readonly NoteRow[], logDays: readonly string[], hasLongterm: boolean, project?: ProjectSection): VaultNode[] {
  const roots = noteNodes(notes, '');
  if (logDays.length) roots.push(logsNode(logDays));
  if (project) {
    roots.unshift({ type: 'project', id: 'project-vault', relPath: '', label: project.label, description: project.description, children: noteNodes(project.notes, 'project:') });
  }
  if (hasLongterm) roots.unshift({ type: 'longterm', id: `${NOTE_ID_PREFIX}${LONGTERM_FILE}`, relPath: LONGTERM_FILE, label: 'Long-term memory' });
  return roots;
}

function logsNode(days: readonly string[]): VaultNode {
  const months = new Map<string, VaultNode[]>();
  for (const day of [...new Set(days)].sort().reverse()) {
    const month = day.slice(0, 7);
    const list = months.get(month) ?? [];
    list.push({ type: 'log', id: `log:${day}`, relPath: `${VAULT_DIRS.logs}/${day}.md`, label: day, day });
    months.set(month, list);
  }
  const children: VaultNode[] = [...months].map(([month, list], i) => ({
    type: 'month', id: `month:${month}`, relPath: VAULT_DIRS.logs, label: month, children: list, newest: i === 0,
  }));
  return { type: 'logs', id: 'folder:logs', relPath: VAULT_DIRS.logs, label: VAULT_DIRS.logs, children };
}

function baseName(rel: string): string {
  return rel.slice(rel.lastIndexOf('/') + 1).replace(/\.md$/i, '');
}

/** Every node of the tree, depth first (tests and look-ups by id). */
export function* walkVaultTree(nodes: readonly VaultNode[]): Generator<VaultNode> {
  for (const n of nodes) {
    yield n;
    if ('children' in n) yield* walkVaultTree(n.children);
  }
}
