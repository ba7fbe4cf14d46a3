// The agents' hooks files: Memory's entries go in without touching anything else and come out exactly.
import * as assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { AgentConfigError, agentLocations, connectAgent, disconnectAgent, hookCommandLine, isConnected, launcherScripts } from '../../../src/hooks/agentConfig';

const ROOT = path.resolve(__dirname, '../../../..');

describe('agent hooks files (Connect / Disconnect Agents)', () => {
  let home: string;
  const launcher = () => ({
    sh: path.join(home, 'store dir', 'bin', 'memory-hook'), cmd: path.join(home, 'store dir', 'bin', 'memory-hook.cmd'),
    mcpSh: path.join(home, 'store dir', 'bin', 'memory-mcp'), mcpCmd: path.join(home, 'store dir', 'bin', 'memory-mcp.cmd'),
  });
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
  it('registers the MCP server in Copilot CLI\'s mcp-config.json beside the user\'s servers, and takes out only ours', () => {
    const loc = agentLocations(home, {});
    mkdirSync(path.dirname(loc.copilotMcpFile), { recursive: true });
    const original = '{\n  "mcpServers": {\n    "playwright": { "type": "local", "command": "npx", "args": ["@playwright/mcp@latest"], "tools": ["*"] }\n  }\n}\n';
    writeFileSync(loc.copilotMcpFile, original);
    assert.equal(isConnected('copilot-cli-mcp', loc), false);
    const rec = connectAgent('copilot-cli-mcp', loc, launcher(), backups());
    const doc = JSON.parse(readFileSync(loc.copilotMcpFile, 'utf8')) as { mcpServers: Record<string, { type: string; command: string; args: string[]; tools?: string[] }> };
    assert.deepEqual(Object.keys(doc.mcpServers), ['playwright', 'vscode-memory']);
    assert.deepEqual(doc.mcpServers['vscode-memory'], { type: 'stdio', command: launcher().mcpSh, args: [], env: {}, tools: ['*'] });
    assert.equal(isConnected('copilot-cli-mcp', loc), true);
    assert.equal(isConnected('copilot', loc), false, 'the MCP entry is not the hooks');
    // Unchanged since: the original bytes come back.
    assert.equal(disconnectAgent(rec), 'restored');
    assert.equal(readFileSync(loc.copilotMcpFile, 'utf8'), original);
    // Changed since (the user added a server): only our entry goes.
    const rec2 = connectAgent('copilot-cli-mcp', loc, launcher(), backups());
    const edited = JSON.parse(readFileSync(loc.copilotMcpFile, 'utf8')) as { mcpServers: Record<string, unknown> };
    edited.mcpServers.context7 = { type: 'http', url: 'https://example.invalid/mcp', tools: ['*'] };
    writeFileSync(loc.copilotMcpFile, JSON.stringify(edited, null, 2));
    assert.equal(disconnectAgent(rec2), 'removed-entries');
    assert.deepEqual(Object.keys((JSON.parse(readFileSync(loc.copilotMcpFile, 'utf8')) as { mcpServers: object }).mcpServers), ['playwright', 'context7']);
  });

  it('registers the MCP server in Claude Code\'s ~/.claude.json without touching its state, and survives Claude rewriting the file', () => {
    const loc = agentLocations(home, {});
    const state = { numStartups: 34, theme: 'dark', projects: { '/src/app': { allowedTools: [], mcpServers: { local: { type: 'stdio', command: 'x' } } } }, mcpServers: { github: { type: 'http', url: 'https://example.invalid' } } };
    writeFileSync(loc.claudeUserConfig, JSON.stringify(state, null, 2));
    const rec = connectAgent('claude-code-mcp', loc, launcher(), backups());
    const doc = JSON.parse(readFileSync(loc.claudeUserConfig, 'utf8')) as typeof state & { mcpServers: Record<string, unknown> };
    assert.deepEqual(doc.mcpServers['vscode-memory'], { type: 'stdio', command: launcher().mcpSh, args: [], env: {} });
    assert.deepEqual({ ...doc, mcpServers: { github: doc.mcpServers.github } }, state, 'everything else as it was');
    // Claude Code rewrites its state file all the time.
    writeFileSync(loc.claudeUserConfig, JSON.stringify({ ...doc, numStartups: 35 }, null, 2));
    assert.equal(disconnectAgent(rec), 'removed-entries');
    assert.deepEqual(JSON.parse(readFileSync(loc.claudeUserConfig, 'utf8')), { ...state, numStartups: 35 });
  });

  it('refuses to replace another MCP server named vscode-memory, and leaves the file as it was', () => {
    const loc = agentLocations(home, {});
    const theirs = '{"mcpServers":{"vscode-memory":{"type":"stdio","command":"/usr/local/bin/someone-elses-server"}}}';
    writeFileSync(loc.claudeUserConfig, theirs);
    assert.throws(() => connectAgent('claude-code-mcp', loc, launcher(), backups()), (e) => e instanceof AgentConfigError && /another MCP server named "vscode-memory"/.test(e.message));
    assert.equal(readFileSync(loc.claudeUserConfig, 'utf8'), theirs);
    assert.equal(isConnected('claude-code-mcp', loc), false);
  });

  it('the MCP entry it writes starts the memory tools through the launcher with no node on PATH (real child process, the SDK\'s client)', async function () {
    this.timeout(30_000);
    const loc = agentLocations(home, {});
    const l = launcher();
    const store = path.join(home, 'store dir');
    const scripts = launcherScripts({ execPath: process.execPath, hookJs: path.join(ROOT, 'dist', 'hook.js'), storeDir: store, vaultDir: path.join(store, 'vault'), socket: path.join(store, 'hooks', 'hook.sock') });
    assert.match(scripts.mcpSh, new RegExp(`exec '${process.execPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}' '[^']*dist/cli.js' mcp --store`));
    mkdirSync(path.dirname(l.mcpSh), { recursive: true });
    writeFileSync(l.mcpSh, scripts.mcpSh);
    chmodSync(l.mcpSh, 0o700);
    connectAgent('claude-code-mcp', loc, l, backups());
    const entry = (JSON.parse(readFileSync(loc.claudeUserConfig, 'utf8')) as { mcpServers: Record<string, { command: string; args: string[] }> }).mcpServers['vscode-memory']!;
    const project = mkdtempSync(path.join(tmpdir(), 'memory mcp project '));
    const client = new Client({ name: 'agent-config-test', version: '1' });
    try {
      await client.connect(new StdioClientTransport({ command: entry.command, args: entry.args, cwd: project, env: { HOME: home, PATH: '/nonexistent' }, stderr: 'ignore' }));
      assert.deepEqual((await client.listTools()).tools.map((t) => t.name).sort(), ['memory_expand', 'memory_forget', 'memory_save', 'memory_search', 'memory_status']);
      const saved = await client.callTool({ name: 'memory_save', arguments: { text: 'The user deploys the agent-config test service on Fridays.', scope: 'project' } });
      assert.match(JSON.stringify(saved), /Saved as \[source:/);
      assert.match(JSON.stringify(await client.callTool({ name: 'memory_search', arguments: { query: 'deploys agent-config test service' } })), /on Fridays/);
    } finally {
      await client.close();
      rmSync(project, { recursive: true, force: true });
    }
  });
});
