// Issue #15 point 5: the CLI and the agent hooks find the project vault from the working directory
// (real child processes of dist/cli.js and dist/hook.js, real git clones).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { locateProjectVault } from '../../../src/hooks/projectVaultLocator';
import { projectIdForFolder } from '../../../src/hooks/projectId';
import { commitAll, git, makeRepos, note, writeFile, type Repos } from './gitFixture';

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');
const CLI_JS = path.join(ROOT, 'dist', 'cli.js');
const HOOK_JS = path.join(ROOT, 'dist', 'hook.js');

describe('team memory from outside VS Code: CLI and hooks (issue #15)', function () {
  this.timeout(60_000);
  let repos: Repos;
  let a: string, b: string, home: string;
  const env = () => ({ ...process.env, VSCODE_MEMORY_HOOK_NO_SOCKET: '1', VSCODE_MEMORY_STORE: '', VSCODE_MEMORY_PROJECT_VAULT: '' });
  const cli = (cwd: string, ...args: string[]) => {
    const r = spawnSync(process.execPath, [CLI_JS, ...args, '--store', path.join(home, 'store'), '--vault', path.join(home, 'vault'), '--json'], { cwd, env: env(), encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 0, r.stderr + r.stdout);
    return JSON.parse(r.stdout) as Record<string, unknown>;
  };

  beforeEach(() => {
    repos = makeRepos();
    a = repos.clone('alice');
    b = repos.clone('bob');
    home = mkdtempSync(path.join(tmpdir(), 'team cli home '));
    writeFile(a, '.memory/semantic/deploy-days.md', note('We deploy the payments service on Fridays after the orca-stage smoke check', 'The staging database is orca-stage.'));
    writeFile(a, 'CLAUDE.md', '# Rules\n\n## Database\n\nThe reporting replica is called quokka-replica.\n');
    commitAll(a, 'team note');
    git(a, 'push', '-q', 'origin', 'HEAD:main');
    git(b, 'pull', '-q');
  });
  afterEach(() => { repos.cleanup(); rmSync(home, { recursive: true, force: true }); });

  it('finds .memory/ from a subfolder of the clone, up to the git root; not above it; off and override', () => {
    const sub = path.join(b, 'src', 'deep');
    mkdirSync(sub, { recursive: true });
    const loc = locateProjectVault(sub)!;
    assert.equal(loc.workspaceRoot, b);
    assert.equal(loc.folder, '.memory');
    assert.equal(loc.projectId, projectIdForFolder(b));
    assert.equal(locateProjectVault(sub, { off: true }), undefined);
    assert.equal(locateProjectVault(sub, { env: { VSCODE_MEMORY_PROJECT_VAULT: 'off' } }), undefined);
    assert.equal(locateProjectVault(repos.dir), undefined, 'no vault above the repositories');
    const other = path.join(b, 'docs', 'team-notes');
    mkdirSync(other, { recursive: true });
    assert.deepEqual(locateProjectVault(sub, { override: '../../docs/team-notes' }), { workspaceRoot: b, folder: 'docs/team-notes', projectId: loc.projectId });
  });

  it("the CLI run inside B's clone recalls A's team note as peer and shows the vault in status; --no-project-vault turns it off", () => {
    const sub = path.join(b, 'src');
    mkdirSync(sub, { recursive: true });
    const r = cli(sub, 'recall', 'when do we deploy the payments service?') as { block: string };
    assert.match(r.block, /orca-stage/);
    assert.match(r.block, /\(note, peer\)/);
    const s = cli(sub, 'status') as { projectVault: { dir: string; notes: number; peer: number; agentFiles: string[] } };
    assert.equal(s.projectVault.dir, path.join(b, '.memory'));
    assert.equal(s.projectVault.notes, 1);
    assert.equal(s.projectVault.peer, 1);
    assert.deepEqual(s.projectVault.agentFiles, ['CLAUDE.md']);
    const off = cli(sub, 'recall', 'when do we deploy the payments service?', '--no-project-vault') as { block: string };
    assert.doesNotMatch(off.block, /orca-stage/);
    assert.equal((cli(sub, 'status', '--no-project-vault') as { projectVault: unknown }).projectVault, null);
  });

  it('the Claude Code hook in the clone gets the team note but not CLAUDE.md again; Copilot gets both', () => {
    const prompt = (agent: string, text: string) => {
      const input = { hook_event_name: 'UserPromptSubmit', session_id: `s-${agent}-${text.length}`, transcript_path: path.join(home, 't.jsonl'), cwd: b, prompt: text };
      const r = spawnSync(process.execPath, [HOOK_JS, '--agent', agent, '--store', path.join(home, 'store'), '--vault', path.join(home, 'vault')], { input: JSON.stringify(input), env: env(), encoding: 'utf8', timeout: 30_000 });
      assert.equal(r.status, 0, r.stderr);
      return r.stdout;
    };
    const claude = prompt('claude-code', 'what is the reporting replica called and when do we deploy payments? quokka');
    assert.match(claude, /orca-stage/);
    assert.doesNotMatch(claude, /quokka-replica/, 'Claude Code already reads CLAUDE.md');
    const copilot = prompt('copilot', 'what is the reporting replica called and when do we deploy payments? quokka');
    assert.match(copilot, /quokka-replica/);
  });
});
