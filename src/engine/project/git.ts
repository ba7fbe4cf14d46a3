// Reading a repository's git facts for the project vault: the user's identity, the last author of every
// note (one batched `git log` pass, cached by HEAD) and which note files are uncommitted.
// A repository is untrusted input: git runs without a pager, hooks, fsmonitor, external diff or textconv,
// with no prompt, no optional locks, a time limit and an output limit. A refusal (a repository owned by someone
// else) reads as "no repository": every note counts as a teammate's (`peer`), never as the user's. Git that cannot
// answer (missing from this process's PATH, timed out, failed part-way) is "unavailable": no facts at all, so the
// caller keeps what it knew instead of stamping every row "unknown author". Uncommitted files are found without `git status` (which may run a repository's clean filters):
// the index's blob ids (`git ls-files -s`) are compared with the blob ids of the files on disk, hashed here.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as path from 'node:path';

/** 10 s per git call: a large history is read once per HEAD, never on the recall path. */
const GIT_TIMEOUT_MS = 10_000;
/** 64 MB of output at most (the log of a vault with 100k note changes fits easily). */
const GIT_MAX_BUFFER = 64 * 1024 * 1024;

const SAFE_CONFIG = [
  '-c', 'core.fsmonitor=false', '-c', 'core.hooksPath=/dev/null', '-c', 'core.pager=cat', '-c', 'diff.external=',
  '-c', 'core.quotePath=false', '-c', 'log.showSignature=false', '-c', 'core.untrackedCache=false',
];

/** How a git call ended: its stdout, or why not (`exit`: git ran and refused or failed; `spawn`: no git; `timeout`). */
export type GitRun = { out: string; failure?: undefined } | { out?: undefined; failure: 'exit' | 'spawn' | 'timeout' };

/** Runs `git <args>` in `cwd` with the safe options. */
export function execGit(cwd: string, args: readonly string[], opts: { maxBuffer?: number } = {}): Promise<GitRun> {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GIT_')) env[k] = v;
  Object.assign(env, { GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', GIT_OPTIONAL_LOCKS: '0', GIT_ASKPASS: '', LC_ALL: 'C' });
  return new Promise((resolve) => {
    execFile('git', ['--no-pager', '--no-optional-locks', ...SAFE_CONFIG, ...args], {
      cwd, env, timeout: GIT_TIMEOUT_MS, maxBuffer: opts.maxBuffer ?? GIT_MAX_BUFFER, windowsHide: true, encoding: 'utf8',
    }, (err, stdout) => {
      if (!err) resolve({ out: stdout });
      else if (typeof (err as { code?: unknown }).code === 'number') resolve({ failure: 'exit' });
      else resolve({ failure: err.killed || err.signal ? 'timeout' : 'spawn' });
    });
  });
}

/** Runs `git <args>` in `cwd` with the safe options; resolves stdout, or undefined on any failure. */
export async function runGit(cwd: string, args: readonly string[], opts: { maxBuffer?: number } = {}): Promise<string | undefined> {
  return (await execGit(cwd, args, opts)).out;
}

/**
 * Git could not answer (not installed or not on this process's PATH, timed out, a read failed part-way): the facts are
 * unknown, which is not the same as "no repository". Callers keep what they knew and change no row's trust on it.
 */
export class GitUnavailableError extends Error {
  constructor(readonly step: string, readonly failure: string) { super(`git unavailable (${step}: ${failure})`); }
}

/** Lower-cased, trimmed email (git identities compare case-insensitively here). */
export function normEmail(s: string | undefined): string | undefined {
  const t = s?.trim().toLowerCase();
  return t ? t : undefined;
}

/** The git blob id of `content` (what `git hash-object` prints, without filters). */
export function blobId(content: Uint8Array): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

/** Whether the file bytes are the index's blob (also with CRLF on disk and LF in the repository). */
export function sameBlob(indexed: string, bytes: Uint8Array): boolean {
  if (blobId(bytes) === indexed) return true;
  // A checkout with autocrlf has CRLF on disk and LF in the repository.
  const lf = Buffer.from(Buffer.from(bytes).toString('latin1').replace(/\r\n/g, '\n'), 'latin1');
  return lf.length !== bytes.length && blobId(lf) === indexed;
}

export interface GitFacts {
  /** The repository's top folder (absolute). */
  top: string;
  /** HEAD's commit id; '' when there is no commit yet. */
  head: string;
  /** `git config user.email`, normalised; undefined when unset. */
  userEmail: string | undefined;
  /** Path (relative to `top`, `/`) → last author email (normalised) of the commits touching it. */
  authors: Map<string, string>;
  /** Path (relative to `top`) → blob id in the index (stage 0); absent = untracked or conflicted. */
  indexed: Map<string, string>;
}

/** The repository holding `dir` (its top folder), or undefined when it is no git work tree. Throws GitUnavailableError. */
export async function gitTop(dir: string): Promise<string | undefined> {
  const r = await execGit(dir, ['rev-parse', '--show-toplevel']);
  if (r.failure === 'exit') return undefined;
  if (r.failure) throw new GitUnavailableError('rev-parse', r.failure);
  return r.out.trim() ? path.resolve(r.out.trim()) : undefined;
}

/** stdout of a call that must succeed; an `exit` failure is allowed (→ '') only where `exitMeansEmpty`. */
async function must(cwd: string, step: string, args: readonly string[], exitMeansEmpty: boolean): Promise<string> {
  const r = await execGit(cwd, args);
  if (r.out !== undefined) return r.out;
  if (r.failure === 'exit' && exitMeansEmpty) return '';
  throw new GitUnavailableError(step, r.failure);
}

/**
 * Reads the git facts about `paths` (absolute; folders or files in one repository) in five calls (rev-parse,
 * HEAD, config, one log, one ls-files). Keys of `authors` and `indexed` are relative to the repository's top (`/`).
 * `previous`: the last result; its authors are reused when HEAD did not move.
 * Undefined: no git work tree. Throws GitUnavailableError when git could not answer — never half-read facts (an
 * empty index read as "every note uncommitted" would make a teammate's notes the user's own; an empty log cached
 * for this HEAD would lose every author until the next commit).
 */
export async function readGitFacts(cwd: string, paths: readonly string[], previous?: GitFacts): Promise<GitFacts | undefined> {
  const top = await gitTop(cwd);
  if (!top) return undefined;
  const head = (await must(top, 'head', ['rev-parse', '--verify', '-q', 'HEAD'], true)).trim(); // exit 1: no commit yet
  const userEmail = normEmail(await must(top, 'config', ['config', 'user.email'], true)); // exit 1: unset
  const specs = paths.map((p) => path.relative(top, p).split(path.sep).join('/')).filter((p) => !p.startsWith('..')).map((p) => p || '.');
  if (specs.length === 0) return { top, head, userEmail, authors: new Map(), indexed: new Map() };
  let authors = previous && previous.top === top && previous.head === head ? previous.authors : undefined;
  if (!authors) {
    authors = new Map();
    if (head) {
      const log = await must(top, 'log', ['log', '--no-renames', '--no-merges', '--format=%x1e%ae', '--name-only', '-z', 'HEAD', '--', ...specs], false);
      for (const rec of log.split('\x1e')) {
        const parts = rec.split(/\n|\0/).filter((x) => x.length > 0);
        const email = normEmail(parts.shift());
        if (!email) continue;
        for (const p of parts) if (!authors.has(p)) authors.set(p, email); // newest commit first
      }
    }
  }
  const indexed = new Map<string, string>();
  const ls = await must(top, 'ls-files', ['ls-files', '-s', '-z', '--', ...specs], false);
  for (const line of ls.split('\0')) {
    const m = /^\d+ ([0-9a-f]{40,64}) (\d)\t(.+)$/s.exec(line);
    if (m && m[2] === '0') indexed.set(m[3]!, m[1]!);
  }
  return { top, head, userEmail, authors, indexed };
}
