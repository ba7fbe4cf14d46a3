// The agent hooks' project id of a folder (src/hooks/projectId.ts) with real git: a clone's origin identifies
// the repository, and a worktree (whose `.git` is a file pointing into the main repository) resolves to the
// same origin — as the extension's reader does through vscode.workspace.fs — so an agent started in a worktree
// files into the same project as the VS Code window on it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileUriString, gitOriginIdentity, projectIdForFolder, projectIdOf } from '../../../src/hooks/projectId';

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=T', ...args], { cwd, stdio: 'ignore' });
}

describe('project id of a folder (agent hooks)', () => {
  let dir: string;
  before(() => { dir = mkdtempSync(path.join(tmpdir(), 'memory-projectid-')); });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('takes the origin URL (scheme, user and .git removed) of a repository', () => {
    const repo = path.join(dir, 'shop');
    git(dir, 'init', '-q', repo);
    git(repo, 'remote', 'add', 'origin', 'git@github.com:acme/shop.git');
    assert.equal(gitOriginIdentity(repo), 'github.com/acme/shop');
    assert.equal(projectIdForFolder(repo), projectIdOf('shop', 'github.com/acme/shop'));
  });

  it('follows a worktree to its repository\'s origin', () => {
    const repo = path.join(dir, 'shop');
    writeFileSync(path.join(repo, 'README.md'), '# shop\n');
    git(repo, 'add', 'README.md');
    git(repo, 'commit', '-q', '-m', 'init');
    const wt = path.join(dir, 'shop-feature');
    git(repo, 'worktree', 'add', '-q', wt, '-b', 'feature');
    assert.equal(gitOriginIdentity(wt), 'github.com/acme/shop');
    assert.equal(projectIdForFolder(wt), projectIdOf('shop-feature', 'github.com/acme/shop'));
  });

  it('falls back to the folder URI without a repository, or for a broken .git file', () => {
    const plain = path.join(dir, 'notes');
    execFileSync('mkdir', ['-p', plain]);
    assert.equal(gitOriginIdentity(plain), undefined);
    assert.equal(projectIdForFolder(plain), projectIdOf('notes', fileUriString(plain)));
    const broken = path.join(dir, 'broken');
    execFileSync('mkdir', ['-p', broken]);
    writeFileSync(path.join(broken, '.git'), 'not a pointer\n');
    assert.equal(gitOriginIdentity(broken), undefined);
  });
});
