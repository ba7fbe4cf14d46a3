// The agents' hooks files: Memory's entries go in without touching anything else and come out exactly.
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { AgentConfigError, agentLocations, connectAgent, disconnectAgent, hookCommandLine, launcherScripts } from '../../../src/hooks/agentConfig';

describe('agent hooks files (Connect / Disconnect Agents)', () => {
  let home: string;
  const launcher = () => ({ sh: path.join(home, 'store dir', 'bin', 'memory-hook'), cmd: path.join(home, 'store dir', 'bin', 'memory-hook.cmd') });
  const backups = () => path.join(home, 'store dir', 'agents', 'backups');
  beforeEach(() => { home = mkdtempSync(path.join(tmpdir(), 'memory agents ')); });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it('quotes the launcher for sh and PowerShell (paths with spaces and quotes)', () => {
    const l = { sh: "/home/o'neil/Application Support/bin/memory-hook", cmd: "C:\\Users\\o'neil\\bin\\memory-hook.cmd" };
    assert.equal(hookCommandLine(l, 'copilot', 'sessionStart', false), `'/home/o'\\''neil/Application Support/bin/memory-hook' --agent copilot --event sessionStart`);
    assert.equal(hookCommandLine(l, 'claude-code', 'Stop', true), `& 'C:\\Users\\o''neil\\bin\\memory-hook.cmd' --agent claude-code --event Stop`);
    const s = launcherScripts({ execPath: '/opt/Code/code', hookJs: '/ext/dist/hook.js', storeDir: '/s', vaultDir: '/v', socket: '/s/hooks/hook.sock' });
    assert.match(s.sh, /^#!\/bin\/sh\n/);
    assert.match(s.sh, /ELECTRON_RUN_AS_NODE=1 exec '\/opt\/Code\/code' '\/ext\/dist\/hook.js' --store '\/s' --vault '\/v' --socket '\/s\/hooks\/hook.sock' "\$@"/);
    assert.match(s.cmd, /set ELECTRON_RUN_AS_NODE=1\r\n"\/opt\/Code\/code" "\/ext\/dist\/hook.js" --store "\/s" --vault "\/v" --socket "\/s\/hooks\/hook.sock" %\*/);
  });

  it('keeps the user\'s later edits to Claude Code\'s settings and takes out only our entries', () => {
    const loc = agentLocations(home, {});
    mkdirSync(path.dirname(loc.claudeSettings), { recursive: true });
    writeFileSync(loc.claudeSettings, '{\n\t"hooks": { "UserPromptSubmit": [ { "hooks": [ { "type": "command", "command": "mine" } ] } ] }\n}\n');
    const rec = connectAgent('claude-code', loc, launcher(), backups());
    const connected = JSON.parse(readFileSync(loc.claudeSettings, 'utf8')) as { hooks: Record<string, unknown[]> };
    assert.equal(connected.hooks.UserPromptSubmit!.length, 2);
    assert.deepEqual(Object.keys(connected.hooks), ['UserPromptSubmit', 'SessionStart', 'Stop', 'SubagentStop', 'PreCompact']);
    assert.match(readFileSync(loc.claudeSettings, 'utf8'), /^\{\n\t"hooks"/, 'the file keeps its tab indentation');
    // Connecting again (e.g. after an update) replaces our entries instead of adding a second set.
    const again = connectAgent('claude-code', loc, launcher(), backups(), rec);
    assert.equal((JSON.parse(readFileSync(loc.claudeSettings, 'utf8')) as { hooks: Record<string, unknown[]> }).hooks.UserPromptSubmit!.length, 2);
    // The user edits the file meanwhile.
    const edited = JSON.parse(readFileSync(loc.claudeSettings, 'utf8')) as Record<string, unknown>;
    edited.model = 'opus';
    writeFileSync(loc.claudeSettings, JSON.stringify(edited, null, 2));
    assert.equal(disconnectAgent(again), 'removed-entries');
    assert.deepEqual(JSON.parse(readFileSync(loc.claudeSettings, 'utf8')), { hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'mine' }] }] }, model: 'opus' });
  });

  it('refuses Claude Code settings that are not a JSON object and leaves them untouched', () => {
    const loc = agentLocations(home, {});
    mkdirSync(path.dirname(loc.claudeSettings), { recursive: true });
    writeFileSync(loc.claudeSettings, '{ "hooks": { // a comment\n } }');
    assert.throws(() => connectAgent('claude-code', loc, launcher(), backups()), (e) => e instanceof AgentConfigError && e.code === 'E_AGENT_SETTINGS_INVALID');
    assert.equal(readFileSync(loc.claudeSettings, 'utf8'), '{ "hooks": { // a comment\n } }');
  });

  it('creates the Copilot hooks file and its folders, and removes them all again', () => {
    const loc = agentLocations(home, {});
    const rec = connectAgent('copilot', loc, launcher(), backups());
    const doc = JSON.parse(readFileSync(loc.copilotFile, 'utf8')) as { version: number; hooks: Record<string, { type: string; bash: string; powershell: string; timeoutSec: number }[]> };
    assert.equal(doc.version, 1);
    assert.equal(doc.hooks.userPromptSubmitted![0]!.type, 'command');
    assert.match(doc.hooks.userPromptSubmitted![0]!.bash, /memory-hook' --agent copilot --event userPromptSubmitted$/);
    assert.equal(disconnectAgent(rec), 'restored');
    assert.equal(existsSync(path.join(home, '.copilot')), false);
  });
});
