// Shared vocabulary of the engine: trust levels, item kinds, ids, scope.

/** SPEC R-MEM-4, most trusted first. */
export const TRUST_LEVELS = ['owner', 'derived', 'ingested', 'peer', 'quarantined'] as const;
export type Trust = (typeof TRUST_LEVELS)[number];

/** Lower rank = more trusted. */
export function trustRank(t: Trust): number {
  return TRUST_LEVELS.indexOf(t);
}

/** The least trusted of the given levels (a derived item is never more trusted than its sources). */
export function leastTrusted(levels: Trust[], floor: Trust = 'derived'): Trust {
  let worst: Trust = floor;
  for (const t of levels) if (trustRank(t) > trustRank(worst)) worst = t;
  return worst;
}

/** Lowering only: returns `requested` when it is less trusted than `current`, else `current`. */
export function lowerTrust(current: Trust, requested: Trust | undefined): Trust {
  if (!requested) return current;
  return trustRank(requested) > trustRank(current) ? requested : current;
}

/** SPEC R-RECALL-4 trust weights. */
export const TRUST_WEIGHT: Record<Trust, number> = {
  owner: 1.0, derived: 1.0, ingested: 0.6, peer: 0.3, quarantined: 0,
};

/** Note kinds (SPEC R-MEM-3), in durable-index rank order. */
export const NOTE_KINDS = ['user', 'feedback', 'domain', 'project', 'reference'] as const;
export type NoteKind = (typeof NOTE_KINDS)[number];

/** Item kinds stored in the engine. Id prefixes per SPEC R-MEM-2. */
export type ItemKind = 'note' | 'raw' | 'summary' | 'fact' | 'entity' | 'working' | 'doc';

export const ID_PREFIX: Record<ItemKind, string> = {
  note: 'vt:', raw: 'rw:', summary: 'gs:', fact: 'fa:', entity: 'en:', working: 'wk:', doc: 'dc:',
};

/**
 * A project-vault note (the repository's `.memory/`, src/engine/project/): kind `note`, id
 * `pv:<project id>/<path in the project vault>` — never equal to a personal note's `vt:` id.
 */
export const PROJECT_NOTE_PREFIX = 'pv:';

/** The id prefixes, as written in messages: "vt:, rw:, gs:, fa:, en:, wk:, dc:, pv:". */
export const ID_PREFIXES_TEXT = [...Object.values(ID_PREFIX), PROJECT_NOTE_PREFIX].join(', ');

/** Longest id a caller may hand us: `vt:` + a vault path, or a prefix and a short hash. */
export const MAX_ID_CHARS = 300;

/**
 * The one id grammar every surface accepts (tools, MCP, CLI): a known prefix (ID_PREFIX), then no NUL, CR or
 * LF, no `..` segment, no absolute or backslash path. A `[source:<id>]` citation is unwrapped. Returns the
 * id, or why it is not one (the rest of a sentence whose subject is the id, e.g. `"id" ${reason}`; no memory text).
 */
export function parseMemoryId(raw: unknown): { ok: true; id: string; kind: ItemKind } | { ok: false; reason: string } {
  if (typeof raw !== 'string') return { ok: false, reason: `must be a memory id string such as "vt:semantic/note.md" (ids start with ${ID_PREFIXES_TEXT})` };
  const id = raw.trim().replace(/^\[?source:/, '').replace(/\]$/, '').trim();
  if (!id) return { ok: false, reason: 'is empty: copy an id from a search result' };
  if (id.length > MAX_ID_CHARS) return { ok: false, reason: `is too long (at most ${MAX_ID_CHARS} chars)` };
  const kind = kindOfId(id);
  if (!kind || id.length === 3 || /[\0\r\n]/.test(id)) {
    return { ok: false, reason: `is not a memory id: ids start with ${ID_PREFIXES_TEXT} (copy one from a search result)` };
  }
  const rest = id.slice(3); // every prefix is three characters
  if (rest.split(/[\\/]/).some((s) => s === '..') || rest.startsWith('/') || rest.includes('\\')) {
    return { ok: false, reason: 'points outside the vault and is refused' };
  }
  return { ok: true, id, kind };
}

export function kindOfId(id: string): ItemKind | undefined {
  if (id.startsWith(PROJECT_NOTE_PREFIX)) return 'note';
  for (const [kind, prefix] of Object.entries(ID_PREFIX)) if (id.startsWith(prefix)) return kind as ItemKind;
  return undefined;
}

export type Role = 'user' | 'assistant' | 'tool' | 'thinking' | 'system';

/** Which part of the product an item came through. */
export type EntryPath = 'participant' | 'tool' | 'command' | 'cli' | 'hook' | 'capture' | 'consolidation' | 'import' | 'vault' | 'bench' | 'api';

/** The scope a conversation may see (SPEC R-MEM-5): its project, its project type and global memory. */
export interface Scope {
  project?: string;
  projectType?: string;
}

/** True when an item labelled (project, projectType) is visible from `scope`. */
export function inScope(scope: Scope, itemProject: string | null | undefined, itemProjectType: string | null | undefined): boolean {
  if (itemProject) return itemProject === scope.project;
  if (itemProjectType) return itemProjectType === scope.projectType;
  return true;
}
