// Reading a repository's git facts for the project vault: the user's identity, the last author of every
// note (one batched `git log` pass, cached by HEAD) and which note files are uncommitted.
// A repository is untrusted input: git runs without a pager, hooks, fsmonitor, external diff or textconv,
// with no prompt, no optional locks, a time limit and an output limit; an error or a refusal (a repository
// owned by someone else, git missing) reads as "unknown", which counts as a teammate's (`peer`), never as the
// user's. Uncommitted files are found without `git status` (which may run a repository's clean filters):
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

/** Runs `git <args>` in `cwd` with the safe options; resolves stdout, or undefined on any failure. */
export function runGit(cwd: string, args: readonly string[], opts: { maxBuffer?: number } = {}): Promise<string | undefined> {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GIT_')) env[k] = v;
  Object.assign(env, { GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', GIT_OPTIONAL_LOCKS: '0', GIT_ASKPASS: '', LC_ALL: 'C' });
  return new Promise((resolve) => {
    execFile('git', ['--no-pager', '--no-optional-locks', ...SAFE_CONFIG, ...args], {
      cwd, env, timeout: GIT_TIMEOUT_MS, maxBuffer: opts.maxBuffer ?? GIT_MAX_BUFFER, windowsHide: true, encoding: 'utf8',
    }, (err, stdout) => resolve(err ? undefined : stdout));
  });
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

/** The repository holding `dir` (its top folder), or undefined when it is no git work tree (or git is missing). */
export async function gitTop(dir: string): Promise<string | undefined> {
  const out = await runGit(dir, ['rev-parse', '--show-toplevel']);
  return out?.trim() ? path.resolve(out.trim()) : undefined;
}

/**
 * Reads the git facts about `paths` (absolute; folders or files in one repository) in four calls (rev-parse,
 * config, one log, one ls-files). Keys of `authors` and `indexed` are relative to the repository's top (`/`).
 * `previous`: the last result; its authors are reused when HEAD did not move.
 */
export async function readGitFacts(cwd: string, paths: readonly string[], previous?: GitFacts): Promise<GitFacts | undefined> {
  const top = await gitTop(cwd);
  if (!top) return undefined;
  const head = (await runGit(top, ['rev-parse', '--verify', '-q', 'HEAD']))?.trim() ?? '';
  const userEmail = normEmail(await runGit(top, ['config', 'user.email']));
  const specs = paths.map((p) => path.relative(top, p).split(path.sep).join('/')).filter((p) => !p.startsWith('..')).map((p) => p || '.');
  if (specs.length === 0) return { top, head, userEmail, authors: new Map(), indexed: new Map() };
  let authors = previous && previous.top === top && previous.head === head ? previous.authors : undefined;
  if (!authors) {
    authors = new Map();
    if (head) {
      const log = await runGit(top, ['log', '--no-renames', '--no-merges', '--format=%x1e%ae', '--name-only', '-z', 'HEAD', '--', ...specs]);
      for (const rec of (log ?? '').split('\x1e')) {
        const parts = rec.split(/\n|\0/).filter((x) => x.length > 0);
        const email = normEmail(parts.shift());
        if (!email) continue;
        for (const p of parts) if (!authors.has(p)) authors.set(p, email); // newest commit first
      }
    }
  }
  const indexed = new Map<string, string>();
  const ls = await runGit(top, ['ls-files', '-s', '-z', '--', ...specs]);
  for (const line of (ls ?? '').split('\0')) {
    const m = /^\d+ ([0-9a-f]{40,64}) (\d)\t(.+)$/s.exec(line);
    if (m && m[2] === '0') indexed.set(m[3]!, m[1]!);
  }
  return { top, head, userEmail, authors, indexed };
}
