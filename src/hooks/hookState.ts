// What the hooks remember between runs, in `<store>/hooks/` (never memory text — hashes, counts, times):
// - one cursor per agent session: the keys of the turns already recorded, so a turn is saved once however
//   often Stop / PreCompact run and however the agent rewrites its transcript; a lock file (O_EXCL) makes
//   two hooks for the same session (VS Code runs the Copilot and the Claude hooks files both) take turns;
// - one marker per (session, event, prompt): the second hook answering the same prompt stays silent, so the
//   block is injected once;
// - per agent, when it last recorded a turn (status).
import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, statSync, unlinkSync, writeFileSync, appendFileSync } from 'node:fs';
import * as path from 'node:path';
import type { HookAgent } from './hookInput';

const LOCK_STALE_MS = 30_000;
/** Markers older than a day are swept (a prompt is answered within seconds). */
const MARKER_TTL_MS = 86_400_000;
const LOG_MAX_BYTES = 512 * 1024;

const hash = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 32);

export interface AgentActivity {
  lastRecordedAt?: number;
  turns: number;
  lastSeenAt?: number;
}

export class HookState {
  readonly dir: string;

  constructor(storeDir: string) {
    this.dir = path.join(storeDir, 'hooks');
  }

  private ensure(sub = ''): string {
    const d = path.join(this.dir, sub);
    mkdirSync(d, { recursive: true, mode: 0o700 });
    return d;
  }

  private cursorFile(agent: string, session: string): string {
    return path.join(this.ensure('sessions'), `${hash(`${agent}\u0000${session}`)}.json`);
  }

  /**
   * Runs `fn` with the session's recorded keys under the session lock; `fn` calls `mark(key)` after each save
   * (written at once, so a crash loses no cursor). Undefined when another hook holds the lock.
   */
  async withCursor<T>(agent: HookAgent, session: string, fn: (recorded: ReadonlySet<string>, mark: (key: string) => void) => Promise<T>): Promise<T | undefined> {
    const file = this.cursorFile(agent === 'claude-code' ? 'claude' : 'copilot', session);
    const lock = `${file}.lock`;
    if (!takeLock(lock)) return undefined;
    try {
      const keys = new Set<string>();
      try {
        const doc = JSON.parse(readFileSync(file, 'utf8')) as { keys?: unknown };
        if (Array.isArray(doc.keys)) for (const k of doc.keys) if (typeof k === 'string') keys.add(k);
      } catch { /* first run for this session, or an unreadable cursor: start empty */ }
      const mark = (key: string) => {
        keys.add(key);
        atomicWrite(file, JSON.stringify({ keys: [...keys] }));
      };
      return await fn(keys, mark);
    } finally {
      try { unlinkSync(lock); } catch { /* already gone */ }
    }
  }

  /** The model an agent named for a session (SessionStart's `model`; Copilot's transcripts name none). */
  sessionModel(agent: HookAgent, session: string, model?: string): string | undefined {
    const file = this.cursorFile(agent === 'claude-code' ? 'claude' : 'copilot', session).replace(/\.json$/, '.model');
    if (model) {
      try { atomicWrite(file, model.slice(0, 200)); } catch { /* the turn is recorded without it */ }
      return model;
    }
    try { return readFileSync(file, 'utf8') || undefined; } catch { return undefined; }
  }

  /** True the first time this (session, event, text) is claimed; false for a second hook answering it. */
  claimAnswer(session: string, event: string, text: string): boolean {
    const dir = this.ensure('answered');
    const file = path.join(dir, hash(`${session}\u0000${event}\u0000${text}`));
    try {
      closeSync(openSync(file, 'wx', 0o600));
    } catch {
      return false;
    }
    if (Math.random() < 0.05) sweep(dir, MARKER_TTL_MS);
    return true;
  }

  noteRecorded(agent: HookAgent, turns: number, now = Date.now()): void {
    const all = this.activity();
    const a = all[agent] ?? { turns: 0 };
    all[agent] = { ...a, turns: a.turns + turns, lastSeenAt: now, ...(turns > 0 ? { lastRecordedAt: now } : {}) };
    try { atomicWrite(path.join(this.ensure(), 'agents.json'), JSON.stringify(all)); } catch { /* status only */ }
  }

  activity(): Partial<Record<HookAgent, AgentActivity>> {
    try {
      return JSON.parse(readFileSync(path.join(this.dir, 'agents.json'), 'utf8')) as Partial<Record<HookAgent, AgentActivity>>;
    } catch {
      return {};
    }
  }

  /** Workspace folders an extension window had open → their project ids (so the cold path agrees with it). */
  knownWorkspaces(): Record<string, string> {
    try {
      const v = JSON.parse(readFileSync(path.join(this.dir, 'workspaces.json'), 'utf8')) as unknown;
      if (typeof v !== 'object' || v === null) return {};
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string'));
    } catch {
      return {};
    }
  }

  rememberWorkspace(folder: string, project: string): void {
    const all = this.knownWorkspaces();
    if (all[folder] === project) return;
    all[folder] = project;
    try { atomicWrite(path.join(this.ensure(), 'workspaces.json'), JSON.stringify(all, null, 1)); } catch { /* the cold path derives instead */ }
  }

  /** One log line: event, agent, codes and counts — never memory text. */
  log(fields: Record<string, string | number | boolean | undefined>): void {
    try {
      const file = path.join(this.ensure(), 'hook.log');
      try { if (statSync(file).size > LOG_MAX_BYTES) renameSync(file, `${file}.1`); } catch { /* no log yet */ }
      const parts = Object.entries(fields).filter(([, v]) => v !== undefined).map(([k, v]) => `${k}=${String(v).replace(/\s+/g, '_').slice(0, 80)}`);
      appendFileSync(file, `${new Date().toISOString()} ${parts.join(' ')}\n`, { mode: 0o600 });
    } catch { /* a hook never fails for its log */ }
  }
}

function takeLock(lock: string): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      closeSync(openSync(lock, 'wx', 0o600));
      return true;
    } catch {
      try {
        if (Date.now() - statSync(lock).mtimeMs > LOCK_STALE_MS) { unlinkSync(lock); continue; }
      } catch { continue; }
      return false;
    }
  }
  return false;
}

function atomicWrite(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600 });
  renameSync(tmp, file);
}

function sweep(dir: string, ttl: number): void {
  const now = Date.now();
  try {
    for (const f of readdirSync(dir)) {
      try { if (now - statSync(path.join(dir, f)).mtimeMs > ttl) unlinkSync(path.join(dir, f)); } catch { /* raced */ }
    }
  } catch { /* nothing to sweep */ }
}
