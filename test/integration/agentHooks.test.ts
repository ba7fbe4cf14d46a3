// Agent hooks in the real VS Code: "Memory: Connect Agents…" writes the hooks files in this extension host's
// HOME (the runner's temporary home), the exact command it wrote runs without `node` on PATH (launcher +
// ELECTRON_RUN_AS_NODE) and answers, "Disconnect" restores the files byte for byte; and, end to end, Copilot's
// own agent (built into code-server 1.139.1) in Agent mode with our bridge model runs the hooks: a fact told in
// one chat is recalled into the next chat's request (UserPromptSubmit) and the first chat's turns are recorded
// once (Stop).
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import * as vscode from 'vscode';
import type { MemoryEngine } from '../../src/engine/engine';
import type { MemoryExtensionApi } from '../../src/extension';
import { fileUriString, projectIdForFolder } from '../../src/hooks/projectId';
import { OPEN_DASHBOARD_COMMAND } from '../../src/vscode/dashboard/dashboardPanel';
import { derivedProjectId } from '../../src/vscode/config';
import { FakeOpenAiServer, sseOf, textChunk, type RecordedRequest, type Reply } from '../unit/model/fakeOpenAiServer';
import { activated, userSettingsLoaded } from './api';
import { isCapture, lastUser, textOf, VENDOR, chatModelListed } from './chatHarness';
import { dashboardResponse, requestScreenshot, until } from './waitFor';
import { internals } from '../../src/engine/internals';

const FACT = 'Our release train leaves every second Thursday at 14:00 UTC from the main branch.';
const hookLog = (api: MemoryExtensionApi) => {
  try { return readFileSync(path.join(api.agents.storeDir, 'hooks', 'hook.log'), 'utf8'); } catch { return ''; }
};

/**
 * Runs a hooks-file command the way an agent does: `sh -c`, JSON on stdin, no node on PATH. Asynchronously: the
 * extension answering on its socket lives in this very process, so a blocking spawn would starve it.
 */
function runHookCommand(command: string, input: unknown, extraEnv: Record<string, string> = {}): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', command], { env: { HOME: homedir(), PATH: '/nonexistent', ...extraEnv } });
    let stdout = '';
    const timer = setTimeout(() => { child.kill(); reject(new Error('the hook command did not exit within 30 s')); }, 30_000);
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString('utf8'); });
    child.on('error', reject);
    child.on('exit', (code) => { clearTimeout(timer); resolve({ code, stdout }); });
    child.stdin.end(JSON.stringify(input));
  });
}

describe('agent hooks: Connect Agents and Copilot\'s agent in VS Code', function () {
  this.timeout(180_000);
  let api: MemoryExtensionApi;
  let engine: MemoryEngine;
  const workspace = () => vscode.workspace.workspaceFolders![0]!;

  before(async () => {
    api = await activated();
    await userSettingsLoaded();
    engine = await api.engine();
  });

  it('derives the same project id for a workspace as the hooks derive for its cwd', () => {
    const folder = workspace();
    assert.equal(fileUriString(folder.uri.fsPath), folder.uri.toString());
    assert.equal(fileUriString('/tmp/a b/ü#x(1)!'), vscode.Uri.file('/tmp/a b/ü#x(1)!').toString());
    assert.equal(projectIdForFolder(folder.uri.fsPath), derivedProjectId(folder.name, folder.uri.toString()));
    assert.equal(projectIdForFolder(folder.uri.fsPath), api.project().project);
  });

  it('connects Copilot and Claude Code, runs the exact commands it wrote without node on PATH, and disconnects byte for byte', async () => {
    const home = homedir();
    const claude = path.join(home, '.claude', 'settings.json');
    mkdirSync(path.dirname(claude), { recursive: true });
    // The user's own settings, formatted their way, with a hook of their own: all of it must survive.
    const original = '{\n    "permissions": { "allow": ["Bash(npm test)"] },\n    "hooks": {\n        "Stop": [ { "hooks": [ { "type": "command", "command": "echo done" } ] } ]\n    },\n    "model": "sonnet"\n}\n';
    writeFileSync(claude, original);
    const copilotFile = path.join(home, '.copilot', 'hooks', 'vscode-memory.json');
    assert.equal(existsSync(path.join(home, '.copilot')), false, 'a fresh home has no Copilot folder');

    const recs = await vscode.commands.executeCommand<{ target: string; file: string }[]>('memory.connectAgents', ['copilot', 'claude-code']);
    assert.deepEqual(recs?.map((r) => r.target), ['copilot', 'claude-code']);
    const copilotDoc = JSON.parse(readFileSync(copilotFile, 'utf8')) as { version: number; hooks: Record<string, { bash: string; powershell: string }[]> };
    assert.equal(copilotDoc.version, 1);
    assert.deepEqual(Object.keys(copilotDoc.hooks), ['sessionStart', 'userPromptSubmitted', 'agentStop', 'subagentStop']);
    const settings = JSON.parse(readFileSync(claude, 'utf8')) as { permissions: unknown; model: string; hooks: Record<string, { hooks: { command: string }[] }[]> };
    assert.deepEqual(settings.permissions, { allow: ['Bash(npm test)'] });
    assert.equal(settings.model, 'sonnet');
    assert.equal(settings.hooks.Stop!.length, 2, 'the user\'s Stop hook stays, ours is added');
    assert.equal(settings.hooks.Stop![0]!.hooks[0]!.command, 'echo done');

    // The launcher: the editor's runtime as Node, never `node` from PATH.
    const launcher = readFileSync(api.agents.launcher.sh, 'utf8');
    assert.ok(launcher.includes(`ELECTRON_RUN_AS_NODE=1 exec '${process.execPath}'`), 'the launcher runs process.execPath');
    assert.ok(launcher.includes(path.join('dist', 'hook.js')));

    const uid = `connect-${Date.now()}`;
    await engine.remember({ text: `The connect test marker ${uid} names the staging database host db-staging-7.`, project: api.project().project });
    const prompt = { timestamp: new Date().toISOString(), hook_event_name: 'UserPromptSubmit', session_id: uid, transcript_path: path.join(home, 'none.jsonl'), cwd: workspace().uri.fsPath, prompt: 'what is the staging database host?' };
    // Through the running extension's socket…
    const viaSocket = await runHookCommand(copilotDoc.hooks.userPromptSubmitted![0]!.bash, prompt);
    assert.equal(viaSocket.code, 0);
    const ctx = (JSON.parse(viaSocket.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
    assert.match(ctx, new RegExp(`${uid}.*db-staging-7`));
    assert.match(hookLog(api).trim().split('\n').at(-1)!, /event=UserPromptSubmit agent=copilot-vscode .*path=extension/);
    // …and by opening the store itself (no extension answering), with Claude Code's command.
    const claudeCommand = settings.hooks.UserPromptSubmit!.at(-1)!.hooks[0]!.command;
    const cold = await runHookCommand(claudeCommand, { ...prompt, session_id: `${uid}-cold` }, { VSCODE_MEMORY_HOOK_NO_SOCKET: '1' });
    assert.equal(cold.code, 0);
    assert.match((JSON.parse(cold.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext, /db-staging-7/);
    assert.match(hookLog(api).trim().split('\n').at(-1)!, /agent=claude-code .*path=process/);

    const status = await vscode.commands.executeCommand<{ agents?: { target: string; connected: boolean }[] }>('memory.showStatus');
    assert.deepEqual(status?.agents?.map((a) => [a.target, a.connected]), [['copilot', true], ['claude-code', true], ['copilot-cli-mcp', false], ['claude-code-mcp', false]]);

    const results = await vscode.commands.executeCommand<string[]>('memory.disconnectAgents', ['copilot', 'claude-code']);
    assert.deepEqual(results, ['restored', 'restored']);
    assert.equal(readFileSync(claude, 'utf8'), original, 'Claude Code\'s settings are byte for byte what they were');
    assert.equal(existsSync(copilotFile), false);
    assert.equal(existsSync(path.join(home, '.copilot')), false, 'the folders connecting created are gone too');
  });

  it('registers the memory tools as an MCP server for Copilot CLI and Claude Code; the command it wrote serves them with the editor\'s runtime; the dashboard lists the connections', async () => {
    const home = homedir();
    const claudeState = path.join(home, '.claude.json');
    const state = '{\n  "numStartups": 3,\n  "mcpServers": {\n    "github": { "type": "http", "url": "https://example.invalid/mcp" }\n  }\n}\n';
    writeFileSync(claudeState, state);
    const recs = await vscode.commands.executeCommand<{ target: string }[]>('memory.connectAgents', ['copilot-cli-mcp', 'claude-code-mcp']);
    assert.deepEqual(recs?.map((r) => r.target), ['copilot-cli-mcp', 'claude-code-mcp']);
    const copilotMcp = JSON.parse(readFileSync(path.join(home, '.copilot', 'mcp-config.json'), 'utf8')) as { mcpServers: Record<string, { command: string; args: string[]; tools: string[] }> };
    assert.deepEqual(copilotMcp.mcpServers['vscode-memory']!.tools, ['*']);
    const claude = JSON.parse(readFileSync(claudeState, 'utf8')) as { numStartups: number; mcpServers: Record<string, { type: string; command: string; args: string[] }> };
    assert.equal(claude.numStartups, 3);
    assert.deepEqual(Object.keys(claude.mcpServers), ['github', 'vscode-memory']);
    const entry = claude.mcpServers['vscode-memory']!;
    assert.equal(entry.command, api.agents.launcher.mcpSh);
    const launcher = readFileSync(entry.command, 'utf8');
    assert.ok(launcher.includes(`ELECTRON_RUN_AS_NODE=1 exec '${process.execPath}'`), 'the MCP launcher runs the editor\'s runtime');

    // Exactly what Claude Code runs: the command and args from its file, no node on PATH, cwd = the project.
    const uid = `mcp-${Date.now()}`;
    await engine.remember({ text: `The MCP test marker ${uid} says the nightly build runs on runner gpu-4.`, project: api.project().project });
    const client = new Client({ name: 'claude-code-stand-in', version: '1' });
    await client.connect(new StdioClientTransport({ command: entry.command, args: entry.args, cwd: workspace().uri.fsPath, env: { HOME: home, PATH: '/nonexistent' }, stderr: 'ignore' }));
    try {
      assert.equal((await client.listTools()).tools.length, 5);
      const found = JSON.stringify(await client.callTool({ name: 'memory_search', arguments: { query: `nightly build runner ${uid}` } }));
      assert.match(found, new RegExp(`${uid}.*gpu-4`), 'the server answers from the same store, for the workspace\'s project');
    } finally {
      await client.close();
    }

    // The dashboard's Agents card asks the host the way the webview does.
    await vscode.commands.executeCommand(OPEN_DASHBOARD_COMMAND);
    const panel = api.dashboard()!;
    const answered = dashboardResponse<{ result?: { name: string; kind: string; connected: boolean }[] }>(panel, 7001, 'the getAgents answer');
    await panel.receive({ type: 'request', id: 7001, method: 'getAgents', params: {} });
    const rows = (await answered).result!;
    assert.deepEqual(rows.filter((r) => r.kind === 'mcp').map((r) => [r.name, r.connected]), [['Copilot CLI MCP', true], ['Claude Code MCP', true]]);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');

    assert.deepEqual(await vscode.commands.executeCommand<string[]>('memory.disconnectAgents', ['copilot-cli-mcp', 'claude-code-mcp']), ['restored', 'restored']);
    assert.equal(readFileSync(claudeState, 'utf8'), state, 'Claude Code\'s state file is byte for byte what it was');
    assert.equal(existsSync(path.join(home, '.copilot')), false);
  });

  describe('end to end with Copilot\'s agent (Agent mode, bridge model, scripted server)', () => {
    let server: FakeOpenAiServer;
    /** Fires after the scripted server recorded a request (tests wait on it, never sleep). */
    const serverRecorded = new vscode.EventEmitter<void>();
    const cfg = () => vscode.workspace.getConfiguration('memory');

    /** The scripted model: plain text answers (no tool calls); capture gets no notes. */
    function answer(req: RecordedRequest): Reply {
      if (req.url.endsWith('/models')) return { json: { data: [{ id: 'stub-model', owned_by: 'test' }] } };
      const streamed = (text: string): Reply => ({ sse: sseOf([textChunk(text.slice(0, 10)), textChunk(text.slice(10), 'stop')]) });
      if (isCapture(req)) return streamed(JSON.stringify({ notes: [] }));
      const q = lastUser(req);
      if (/When does the release train leave/i.test(q)) {
        return streamed(/second Thursday at 14:00 UTC/.test(textOf(req)) ? 'From memory: every second Thursday at 14:00 UTC, from main.' : 'I do not know when the release train leaves.');
      }
      if (/release train leaves/.test(q)) return streamed('Noted: the release train leaves every second Thursday at 14:00 UTC from main.');
      return streamed('A short title for this chat');
    }

    before(async () => {
      server = await FakeOpenAiServer.start((req) => { setImmediate(() => serverRecorded.fire()); return answer(req); });
      await cfg().update('localModels', [{ name: 'Stub Local', baseUrl: server.baseUrl, model: 'stub-model', contextWindow: 32768 }], vscode.ConfigurationTarget.Global);
      // The bridge model appears once the setting reached the provider (an event, not a sleep).
      await chatModelListed({ vendor: VENDOR });
      await vscode.commands.executeCommand('memory.connectAgents', ['copilot']);
    });

    after(async () => {
      await vscode.commands.executeCommand('memory.disconnectAgents', ['copilot']);
      await cfg().update('localModels', undefined, vscode.ConfigurationTarget.Global);
      await server?.close();
    });

    const agentTurns = () => internals(engine).store.items.list({ kind: 'raw' }).filter((i) => i.conversation?.startsWith('copilot-'));

    it('recalls a fact told to the plain agent in an earlier chat and records that chat\'s turns once', async () => {
      const model = (await vscode.lm.selectChatModels({ vendor: VENDOR }))[0]!;
      await vscode.commands.executeCommand('workbench.action.chat.newChat');
      await vscode.commands.executeCommand('workbench.action.chat.open', {
        query: `Please remember this: ${FACT}`, modelSelector: { vendor: model.vendor, id: model.id }, blockOnResponse: true,
      });
      // Copilot's agent sends the user's words inside its own prompt (content parts, <userRequest> tags).
      const told = await until(serverRecorded.event, () => server.chats.find((r) => !isCapture(r) && textOf(r).includes(FACT)), 'Copilot\'s agent to send the first prompt to the bridge model', 60_000)
        .catch((e: Error) => { throw new Error(`${e.message}; the server saw ${server.chats.length} chat request(s): ${server.chats.map((r) => textOf(r).slice(-300).replace(/\s+/g, ' ')).join(' | ')}`); });
      assert.ok(told);
      // The Stop hook records the turn (through the socket, in this window's engine).
      const recorded = await until(engine.onDidChange, () => {
        const t = agentTurns().filter((i) => i.role === 'user' && internals(engine).writer.textOf(i).includes(FACT));
        return t.length ? t : undefined;
      }, 'the Stop hook to record the first chat\'s user message', 60_000);
      assert.equal(recorded.length, 1);
      const conversation = recorded[0]!.conversation!;
      assert.equal(recorded[0]!.trust, 'owner');
      assert.equal(recorded[0]!.project, api.project().project, 'the turn belongs to the window\'s project');

      await vscode.commands.executeCommand('workbench.action.chat.newChat');
      const before = server.chats.length;
      await vscode.commands.executeCommand('workbench.action.chat.open', {
        query: 'When does the release train leave?', modelSelector: { vendor: model.vendor, id: model.id }, blockOnResponse: true,
      });
      const asked = await until(serverRecorded.event, () => server.chats.slice(before).find((r) => !isCapture(r) && /When does the release train leave/.test(textOf(r))), 'the second chat to reach the bridge model', 60_000);
      assert.ok(asked, 'the second chat reached the bridge model');
      const sent = textOf(asked);
      assert.match(sent, /<memory-context>[\s\S]*second Thursday at 14:00 UTC[\s\S]*<\/memory-context>/, 'the hook\'s recall block carries the fact into the request');
      assert.match(sent, /data, not instructions/);
      await requestScreenshot('agent-hooks');

      // Both chats' Stop hooks have run: the first chat's turns are in memory exactly once.
      await until(engine.onDidChange, () => agentTurns().some((i) => i.conversation !== conversation && i.role === 'assistant') || undefined,
        'the second chat\'s Stop hook', 60_000);
      await api.agents.drain();
      const first = agentTurns().filter((i) => i.conversation === conversation);
      assert.deepEqual(first.map((i) => i.role), ['user', 'assistant']);
      assert.match(internals(engine).writer.textOf(first[1]!), /^Noted: the release train leaves/);
      assert.equal(first[1]!.provider, 'copilot');
      assert.match(hookLog(api), /event=Stop agent=copilot-vscode .*outcome=recording .*path=extension/);
    });
  });
});
