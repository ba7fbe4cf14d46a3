// Issue #15: a process whose git cannot answer (git not on its PATH — an agent's hook started with a minimal
// environment —, a timeout, a read failing part-way) must not rewrite what a process that could read git found,
// and must never read a half-answer as "every note is uncommitted, so the user's own". Real git, real child
// processes of dist/cli.js, and a real `git` wrapper on PATH that fails one subcommand.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { projectIdForFolder } from '../../../src/hooks/projectId';
import { createTestEngine, type TestEngine } from '../engine/builders';
import { commitAll, git, makeRepos, note, writeFile, type Repos } from './gitFixture';

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');
const CLI_JS = path.join(ROOT, 'dist', 'cli.js');
const REAL_GIT = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();

describe('team memory when git cannot answer (issue #15)', function () {
  this.timeout(60_000);
  let repos: Repos;
  let b: string, project: string, bin: string;
  let t: TestEngine;
  const savedPath = process.env.PATH;

  beforeEach(async () => {
    repos = makeRepos();
    const a = repos.clone('alice');
    b = repos.clone('bob');
    project = projectIdForFolder(b);
    writeFile(a, '.memory/semantic/deploy-days.md', note('We deploy the payments service on Fridays after the orca-stage smoke check', 'Staging is orca-stage.'));
    commitAll(a, 'team note');
    git(a, 'push', '-q', 'origin', 'HEAD:main');
    git(b, 'pull', '-q');
    bin = mkdtempSync(path.join(tmpdir(), 'git wrapper '));
    t = await createTestEngine();
  });
  afterEach(async () => {
    process.env.PATH = savedPath;
    await t.cleanup();
    repos.cleanup();
    rmSync(bin, { recursive: true, force: true });
  });

  const attach = (extra: object = {}) => t.engine.project.attach({ workspaceRoot: b, projectId: project, watch: false, ...extra });
  /** A `git` on PATH that fails (exit 1) when its arguments contain `word`, and is the real git otherwise. */
  const failingGit = (word: string) => {
    writeFileSync(path.join(bin, 'git'), `#!/bin/sh\ncase " $* " in *" ${word} "*) echo "simulated failure" >&2; exit 1;; esac\nexec '${REAL_GIT}' "$@"\n`);
    chmodSync(path.join(bin, 'git'), 0o755);
    process.env.PATH = `${bin}${path.delimiter}${savedPath}`;
  };

  it("a CLI run without git on its PATH keeps the teammate's author another process read; its own view stays peer", async () => {
    await attach();
    assert.equal(t.engine.project.notes()[0]!.author, 'alice@team.example');
    await t.engine.close();

    // The same store and vault from a child process whose PATH has no git (only node, by absolute path).
    const r = spawnSync(process.execPath, [CLI_JS, 'status', '--store', t.storeDir, '--vault', t.vaultDir, '--json'], {
      cwd: b, encoding: 'utf8', timeout: 30_000,
      env: { ...process.env, PATH: bin, VSCODE_MEMORY_HOOK_NO_SOCKET: '1', VSCODE_MEMORY_STORE: '', VSCODE_MEMORY_PROJECT_VAULT: '' },
    });
    assert.equal(r.status, 0, r.stderr + r.stdout);
    const info = (JSON.parse(r.stdout) as { projectVault: { git: boolean; peer: number; owner: number } }).projectVault;
    assert.equal(info.git, false, 'the CLI could not read git');
    assert.equal(info.peer, 1, 'without git the note is a teammate\'s, never the user\'s');
    assert.equal(info.owner, 0);
    assert.equal((JSON.parse(r.stdout) as { projectVault: { gitUnavailable: boolean } }).projectVault.gitUnavailable, true);

    t.engine = await t.reopen();
    await attach({ sync: false }); // the rows as the CLI left them
    const [n] = t.engine.project.notes();
    assert.equal(n!.author, 'alice@team.example', 'the author survived the git-less process');
    assert.equal(n!.trust, 'peer');
  });

  it('a failing `git ls-files` never makes committed teammate notes "uncommitted" (the user\'s own)', async () => {
    failingGit('ls-files');
    const r = await attach();
    assert.equal(r.git, false);
    const [n] = t.engine.project.notes();
    assert.equal(n!.trust, 'peer', 'unknown git facts count as a teammate\'s');
    assert.equal(n!.uncommitted, false);
    assert.equal(t.logger.lines.filter((e) => e.event === 'project.git_unavailable').length, 1);

    process.env.PATH = savedPath; // git answers again: the next sync reads the author
    await t.engine.project.sync();
    const [m] = t.engine.project.notes();
    assert.equal(m!.author, 'alice@team.example');
    assert.equal(m!.trust, 'peer');
    assert.equal(t.engine.project.info()!.git, true);
  });

  it('a failing `git log` is not cached for the HEAD: the authors come back once it answers', async () => {
    await attach();
    assert.equal(t.engine.project.notes()[0]!.author, 'alice@team.example');
    failingGit('log');
    await t.engine.project.sync();
    assert.equal(t.engine.project.notes()[0]!.author, 'alice@team.example', 'a failed read changes no row');

    t.engine = await t.reopen(); // a new process: no facts cached
    await attach(); // log fails at its first read
    assert.equal(t.engine.project.notes()[0]!.author, 'alice@team.example', 'rows keep their author');
    process.env.PATH = savedPath;
    await t.engine.project.sync(); // same HEAD: an empty log cached for it would lose the author here
    const [n] = t.engine.project.notes();
    assert.equal(n!.author, 'alice@team.example');
    assert.equal(n!.trust, 'peer');
    assert.equal(n!.uncommitted, false);
  });
});
