// Real git in temp folders for the team-memory tests: a bare origin and clones with their own identities.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

/** git with a neutral environment: no global or system config, no pager, fixed dates are not needed. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat' },
  });
}

/** git that may fail (a merge with conflicts): returns the exit status. */
export function gitStatus(cwd: string, ...args: string[]): number {
  try { git(cwd, ...args); return 0; } catch (e) { return (e as { status?: number }).status ?? 1; }
}

export interface Repos {
  dir: string;
  origin: string;
  /** Clone folders (`<name>/shop`) by name, each with its own user.email `<name>@team.example`. */
  clone(name: string): string;
  cleanup(): void;
}

export function makeRepos(): Repos {
  const dir = mkdtempSync(path.join(tmpdir(), 'team memory '));
  const origin = path.join(dir, 'origin.git');
  git(dir, 'init', '-q', '--bare', '-b', 'main', origin);
  // A first commit so clones have a branch to track.
  const seed = path.join(dir, 'seed');
  git(dir, 'clone', '-q', origin, seed);
  identity(seed, 'seed');
  writeFileSync(path.join(seed, 'README.md'), '# demo\n');
  git(seed, 'add', '-A');
  git(seed, 'commit', '-q', '-m', 'init');
  git(seed, 'push', '-q', 'origin', 'HEAD:main');
  return {
    dir, origin,
    clone(name) {
      // Same folder name in every clone (the project id is `<folder name>-<hash of origin>`).
      const p = path.join(dir, name, 'shop');
      mkdirSync(path.dirname(p), { recursive: true });
      git(dir, 'clone', '-q', origin, p);
      identity(p, name);
      return p;
    },
    cleanup() { rmSync(dir, { recursive: true, force: true }); },
  };
}

function identity(repo: string, name: string): void {
  git(repo, 'config', 'user.email', `${name}@team.example`);
  git(repo, 'config', 'user.name', name);
  git(repo, 'config', 'pull.rebase', 'false');
}

export function writeFile(root: string, rel: string, text: string): string {
  const p = path.join(root, ...rel.split('/'));
  mkdirSync(path.dirname(p), { recursive: true });
  writeFileSync(p, text);
  return p;
}

export function commitAll(repo: string, message: string): void {
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', message);
}

export function note(summary: string, body: string, extra = ''): string {
  return `---\nkind: project\nsummary: ${summary}\n${extra}---\n${body}\n`;
}
