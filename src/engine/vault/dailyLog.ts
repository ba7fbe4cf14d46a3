// Daily logs (SPEC R-WRITE-7): one Markdown file per local day, each turn appended as
// `### user` / `### assistant` blocks, read back as short-term history.
// Invariant (Wintermute LESSONS §29): the parser splits ONLY on lines that are exactly a known role
// header, and the writer escapes such lines inside a message, so any message text round-trips.
//
// Escaping: a message line that is exactly a role header or our metadata comment — optionally already
// preceded by backslashes — gets one more leading `\` on write; the parser removes one. `\### user`
// renders in Markdown as the literal text "### user", so the file still reads right in an editor.
// Messages are stored trimmed: leading blank lines and trailing whitespace are not kept.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MemoryError } from '../errors';
import { VAULT_DIRS, dailyLogRelPath, localDay } from './vaultLayout';

export type LogRole = 'user' | 'assistant';

export interface DailyLogEntry {
  role: LogRole;
  text: string;
  /** ISO instant from the block's metadata line, when present. */
  at?: string;
  conversation?: string;
}

export interface RecentTurn extends DailyLogEntry {
  /** `YYYY-MM-DD` of the file it came from. */
  day: string;
}

const HEADER_RE = /^### (user|assistant)[ \t]*\r?$/gm;
const META_RE = /^<!-- memory: (.*) -->[ \t]*\r?$/;
const ESCAPABLE_RE = /^(\\*)(### (?:user|assistant)[ \t]*|<!-- memory: .* -->[ \t]*)(\r?)$/;
const LOG_FILE_RE = /^\d{4}-\d{2}-\d{2}\.md$/;

function trimMessage(s: string): string {
  return s.replace(/^(?:[ \t]*\r?\n)+/, '').replace(/\s+$/, '');
}

function escapeMessage(text: string): string {
  return text.split('\n').map((l) => (ESCAPABLE_RE.test(l) ? '\\' + l : l)).join('\n');
}

function unescapeMessage(text: string): string {
  return text.split('\n').map((l) => {
    const m = ESCAPABLE_RE.exec(l);
    return m && m[1].length > 0 ? l.slice(1) : l;
  }).join('\n');
}

function metaLine(at: Date, conversation?: string): string {
  const parts = [`at=${at.toISOString()}`];
  if (conversation !== undefined) parts.push(`conversation=${encodeURIComponent(conversation)}`);
  return `<!-- memory: ${parts.join(' ')} -->`;
}

function parseMeta(s: string): { at?: string; conversation?: string } {
  const out: { at?: string; conversation?: string } = {};
  for (const kv of s.trim().split(/\s+/)) {
    const eq = kv.indexOf('=');
    if (eq < 0) continue;
    const k = kv.slice(0, eq);
    const v = kv.slice(eq + 1);
    try {
      if (k === 'at') out.at = v;
      else if (k === 'conversation') out.conversation = decodeURIComponent(v);
    } catch { /* a hand-mangled value is dropped, the message is kept */ }
  }
  return out;
}

/** Splits one log file into messages, in file order. Text before the first header is ignored. */
export function parseDailyLog(content: string): DailyLogEntry[] {
  if (typeof content !== 'string') throw new MemoryError('E_BAD_INPUT', 'daily log must be text');
  const out: DailyLogEntry[] = [];
  const headers = [...content.matchAll(HEADER_RE)];
  for (let i = 0; i < headers.length; i++) {
    const h = headers[i];
    const start = (h.index ?? 0) + h[0].length;
    const end = i + 1 < headers.length ? (headers[i + 1].index ?? content.length) : content.length;
    let block = content.slice(start, end).replace(/^\n/, '');
    const entry: DailyLogEntry = { role: h[1] as LogRole, text: '' };
    const nl = block.indexOf('\n');
    const first = nl < 0 ? block : block.slice(0, nl);
    const meta = META_RE.exec(first);
    if (meta) {
      Object.assign(entry, parseMeta(meta[1]));
      block = nl < 0 ? '' : block.slice(nl + 1);
    }
    entry.text = unescapeMessage(trimMessage(block));
    out.push(entry);
  }
  return out;
}

/** Serialises one message block (header, metadata line, escaped text, blank line). */
export function formatLogEntry(role: LogRole, text: string, at: Date, conversation?: string): string {
  return `### ${role}\n${metaLine(at, conversation)}\n${escapeMessage(trimMessage(text))}\n\n`;
}

function toDate(at: Date | number): Date {
  const d = typeof at === 'number' ? new Date(at) : at;
  if (!(d instanceof Date) || Number.isNaN(d.getTime())) throw new MemoryError('E_BAD_INPUT', 'invalid turn time');
  return d;
}

async function ensureLogFile(vaultDir: string, day: string): Promise<string> {
  const file = path.join(vaultDir, ...dailyLogRelPath(day).split('/'));
  await fs.promises.mkdir(path.dirname(file), { recursive: true });
  try {
    // 'wx': create only; a concurrent writer or the user's own file wins and is kept.
    await fs.promises.writeFile(file, `# ${day}\n\n`, { flag: 'wx' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  return file;
}

export interface AppendTurnInput {
  at: Date | number;
  timeZone: string;
  user: string;
  assistant: string;
  conversation?: string;
}

/** Appends one turn with a single appendFile call, so a turn is never half-written by us. */
export async function appendTurn(vaultDir: string, turn: AppendTurnInput): Promise<{ relPath: string; path: string }> {
  if (typeof turn?.user !== 'string' || typeof turn.assistant !== 'string') throw new MemoryError('E_BAD_INPUT', 'turn messages must be text');
  if (turn.conversation !== undefined && typeof turn.conversation !== 'string') throw new MemoryError('E_BAD_INPUT', 'conversation id must be text');
  const at = toDate(turn.at);
  const day = localDay(at, turn.timeZone);
  const file = await ensureLogFile(vaultDir, day);
  const chunk = formatLogEntry('user', turn.user, at, turn.conversation) + formatLogEntry('assistant', turn.assistant, at, turn.conversation);
  await fs.promises.appendFile(file, chunk, 'utf8');
  return { relPath: dailyLogRelPath(day), path: file };
}

/** Path of today's log (local day in `timeZone`), creating it with a title line when missing. */
export async function todayNotePath(vaultDir: string, now: Date | number, timeZone: string): Promise<string> {
  return ensureLogFile(vaultDir, localDay(toDate(now), timeZone));
}

/** Log days present in the vault, newest first. */
export async function listLogDays(vaultDir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await fs.promises.readdir(path.join(vaultDir, VAULT_DIRS.logs));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  return names.filter((n) => LOG_FILE_RE.test(n)).map((n) => n.slice(0, 10)).sort().reverse();
}

/**
 * The last `limit` messages (not turns) across days, oldest first — the short-term history when a
 * conversation resumes. Reads newest files first and stops once it has enough.
 */
export async function recentTurns(vaultDir: string, opts: { limit: number; conversation?: string; maxDays?: number }): Promise<RecentTurn[]> {
  const limit = Math.max(0, Math.floor(opts.limit));
  if (limit === 0) return [];
  const days = (await listLogDays(vaultDir)).slice(0, opts.maxDays ?? 60);
  const collected: RecentTurn[] = [];
  for (const day of days) {
    let content: string;
    try {
      content = await fs.promises.readFile(path.join(vaultDir, VAULT_DIRS.logs, `${day}.md`), 'utf8');
    } catch { continue; }
    const entries = parseDailyLog(content)
      .filter((e) => opts.conversation === undefined || e.conversation === opts.conversation)
      .map((e) => ({ ...e, day }));
    collected.unshift(...entries);
    if (collected.length >= limit) break;
  }
  return collected.slice(-limit);
}

export interface LogMessageMatch {
  conversation: string | null;
  role: LogRole;
  /** The message as saved; compared trimmed, as the log stores it. */
  text: string;
}

/**
 * Removes the blocks of `content` whose message matches (same role, conversation and text). Every other
 * byte stays as it was: a block runs from its `### role` header to the next header (or the end), so
 * cutting it leaves the file exactly as if the message had never been appended.
 */
export function removeLogMessages(content: string, match: LogMessageMatch): { content: string; removed: number } {
  const want = trimMessage(match.text);
  const headers = [...content.matchAll(HEADER_RE)];
  let out = '';
  let last = 0;
  let removed = 0;
  for (let i = 0; i < headers.length; i++) {
    const start = headers[i]!.index ?? 0;
    const end = i + 1 < headers.length ? (headers[i + 1]!.index ?? content.length) : content.length;
    const [entry] = parseDailyLog(content.slice(start, end));
    if (entry && entry.role === match.role && entry.text === want && (entry.conversation ?? null) === match.conversation) {
      out += content.slice(last, start);
      last = end;
      removed++;
    }
  }
  return removed ? { content: out + content.slice(last), removed } : { content, removed: 0 };
}

/** Log days (`YYYY-MM-DD`) that hold a block matching the message, among `days`. */
export async function logDaysWith(vaultDir: string, days: readonly string[], match: LogMessageMatch): Promise<string[]> {
  const out: string[] = [];
  for (const day of days) {
    let content: string;
    try {
      content = await fs.promises.readFile(path.join(vaultDir, VAULT_DIRS.logs, `${day}.md`), 'utf8');
    } catch { continue; }
    if (removeLogMessages(content, match).removed > 0) out.push(day);
  }
  return out;
}

/**
 * Rewrites each day's log without the matching message blocks, atomically (temp file + rename in the same
 * folder). An append that lands between the read and the rename is not lost: the file is re-read and the
 * rewrite retried when its size changed meanwhile. Returns the days rewritten.
 */
export async function forgetInLogs(vaultDir: string, days: readonly string[], match: LogMessageMatch): Promise<string[]> {
  const done: string[] = [];
  for (const day of days) {
    const file = path.join(vaultDir, VAULT_DIRS.logs, `${day}.md`);
    for (let attempt = 0; attempt < 5; attempt++) {
      let content: string;
      try {
        content = await fs.promises.readFile(file, 'utf8');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') break;
        throw e;
      }
      const r = removeLogMessages(content, match);
      if (!r.removed) break;
      const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
      const fh = await fs.promises.open(tmp, 'w');
      try {
        await fh.writeFile(r.content, 'utf8');
        await fh.sync();
      } finally {
        await fh.close();
      }
      const size = (await fs.promises.stat(file).catch(() => null))?.size;
      if (size !== Buffer.byteLength(content, 'utf8')) { await fs.promises.rm(tmp, { force: true }); continue; }
      await fs.promises.rename(tmp, file);
      done.push(day);
      break;
    }
  }
  return done;
}
