// "Memory: Connect Agents…" / "Memory: Disconnect Agents…" and the extension's side of the agent hooks:
// - the launcher (`<global storage>/bin/memory-hook`, `.cmd` on Windows) that runs dist/hook.js with the editor's
//   own runtime (`process.execPath`, ELECTRON_RUN_AS_NODE=1), rewritten on every activation and vault change
//   because an extension update moves the extension's folder;
// - the local socket on which this window answers the hooks from its open engine (hookSocket.ts), with the
//   project of the window's workspace (honouring `memory.projectId`) for a cwd inside it;
// - the two commands, which write / undo the agents' hooks files (hooks/agentConfig.ts) and keep what they
//   changed in `<global storage>/agents/connections.json`.
import { chmodSync, mkdirSync, readFileSync, writeFileSync, renameSync } from 'node:fs';
import { homedir } from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Logger } from '../../engine/host';
import type { EngineSettings } from '../../engine/settings';
import {
  AGENT_TARGETS, agentLocations, AgentConfigError, connectAgent, disconnectAgent, isConnected, launcherScripts, MCP_SERVER_NAME,
  type AgentLocations, type AgentTarget, type ConnectionRecord, type LauncherPaths,
} from '../../hooks/agentConfig';
import { defaultProjectOf, handleHook } from '../../hooks/hookHandler';
import { HOOK_AGENTS, parseHookInput, type HookAgent } from '../../hooks/hookInput';
import { hookSocketPath, HookSocketServer } from '../../hooks/hookSocket';
import { HookState, type AgentActivity } from '../../hooks/hookState';
import { pickBackgroundModel } from '../bridge/lmBackgroundModel';
import type { AgentRowView } from '../../protocol/dashboard';
import type { ProjectContext } from '../config';
import { commandRegistrar, type EngineHost } from '../engineHost';
import { errorCode } from '../../engine/errors';

export const CONNECT_AGENTS_COMMAND = 'memory.connectAgents';
export const DISCONNECT_AGENTS_COMMAND = 'memory.disconnectAgents';

const TARGETS: { target: AgentTarget; label: string; name: string; detail: (l: AgentLocations) => string; agents: HookAgent[] }[] = [
  { target: 'copilot', label: 'GitHub Copilot — agent mode in VS Code and Copilot CLI', name: 'Copilot hooks', detail: (l) => `hooks: ${l.copilotFile}`, agents: ['copilot-vscode', 'copilot-cli'] },
  { target: 'claude-code', label: 'Claude Code', name: 'Claude Code hooks', detail: (l) => `hooks: ${l.claudeSettings}`, agents: ['claude-code'] },
  { target: 'copilot-cli-mcp', label: 'Copilot CLI — memory tools (MCP server)', name: 'Copilot CLI MCP', detail: (l) => `MCP server "${MCP_SERVER_NAME}": ${l.copilotMcpFile}`, agents: [] },
  { target: 'claude-code-mcp', label: 'Claude Code — memory tools (MCP server)', name: 'Claude Code MCP', detail: (l) => `MCP server "${MCP_SERVER_NAME}" (user scope): ${l.claudeUserConfig}`, agents: [] },
];

const AGENT_NAMES: Record<HookAgent, string> = { 'copilot-vscode': 'Copilot (VS Code)', 'copilot-cli': 'Copilot CLI', 'claude-code': 'Claude Code' };

export interface AgentStatus {
  target: AgentTarget;
  connected: boolean;
  /** Per agent that ran our hooks: when it last recorded a turn, turns recorded. */
  activity: { agent: HookAgent; name: string; lastRecordedAt?: number; turns: number }[];
}

export interface AgentHooksDeps {
  host: EngineHost;
  logger: Logger;
  settings: () => EngineSettings;
  vaultPath: () => string;
  /** This window's project (the workspace's confirmed or derived id; issue #12's ProjectScope). */
  project: () => ProjectContext;
  /** Where agents' user files live (os.homedir(); tests give a temporary folder). */
  home?: () => string;
}

export class AgentHooks implements vscode.Disposable {
  readonly storeDir: string;
  readonly launcher: LauncherPaths;
  readonly socketPath: string;
  private readonly state: HookState;
  private server: HookSocketServer | undefined;
  private retry: NodeJS.Timeout | undefined;
  private readonly pending = new Set<Promise<unknown>>();
  private disposed = false;

  constructor(private readonly context: vscode.ExtensionContext, private readonly deps: AgentHooksDeps) {
    this.storeDir = path.resolve(context.globalStorageUri.fsPath);
    const bin = path.join(this.storeDir, 'bin');
    this.launcher = {
      sh: path.join(bin, 'memory-hook'), cmd: path.join(bin, 'memory-hook.cmd'),
      mcpSh: path.join(bin, 'memory-mcp'), mcpCmd: path.join(bin, 'memory-mcp.cmd'),
    };
    this.state = new HookState(this.storeDir);
    this.socketPath = hookSocketPath(this.storeDir);
  }

  private get home(): string { return this.deps.home?.() ?? homedir(); }
  get locations(): AgentLocations { return agentLocations(this.home); }
  private get recordsFile(): string { return path.join(this.storeDir, 'agents', 'connections.json'); }

  /** (Re)writes the launcher scripts for the current runtime, extension folder, store and vault. */
  writeLauncher(): void {
    const s = launcherScripts({
      execPath: process.execPath, hookJs: path.join(this.context.extensionPath, 'dist', 'hook.js'), cliJs: path.join(this.context.extensionPath, 'dist', 'cli.js'),
      storeDir: this.storeDir, vaultDir: path.resolve(this.deps.vaultPath()), socket: this.socketPath,
    });
    // The cold path (no window answering) maps a cwd to this window's project, memory.projectId included.
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      if (folder.uri.scheme !== 'file') continue;
      const project = folder === vscode.workspace.workspaceFolders![0] ? this.deps.project().project : undefined;
      if (project) this.state.rememberWorkspace(path.resolve(folder.uri.fsPath), project);
    }
    mkdirSync(path.dirname(this.launcher.sh), { recursive: true, mode: 0o700 });
    for (const [file, text, mode] of [
      [this.launcher.sh, s.sh, 0o700], [this.launcher.cmd, s.cmd, 0o600], [this.launcher.mcpSh, s.mcpSh, 0o700], [this.launcher.mcpCmd, s.mcpCmd, 0o600],
    ] as const) {
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, text, { mode });
      chmodSync(tmp, mode);
      renameSync(tmp, file);
    }
  }

  /** Starts answering hooks over the local socket (a live socket of another window is left to it). */
  async listen(): Promise<boolean> {
    if (this.disposed || this.server) return !!this.server;
    const server = new HookSocketServer(this.socketPath, (req) => this.answer(req.raw, req.event, req.agent));
    let ok = false;
    try {
      ok = await server.listen();
    } catch (e) {
      this.deps.logger.warn('hooks.socket_failed', { code: (e as NodeJS.ErrnoException).code ?? 'error' });
    }
    if (ok) {
      this.server = server;
      this.deps.logger.info('hooks.socket_listening', {});
    } else if (!this.disposed) {
      // Another window answers; take over when it closes.
      this.retry = setTimeout(() => { this.retry = undefined; void this.listen(); }, 60_000);
    }
    return ok;
  }

  /** One hook request, answered from this window's engine. Fail-soft: any problem answers nothing. */
  async answer(raw: string, event?: string, agentFlag?: string): Promise<string> {
    let input;
    try {
      input = parseHookInput(raw, { event, agent: agentFlag === 'claude-code' ? 'claude-code' : HOOK_AGENTS.includes(agentFlag as HookAgent) ? agentFlag as HookAgent : undefined });
    } catch (e) {
      this.state.log({ outcome: 'bad_input', code: (e as { code?: string }).code ?? 'E_HOOK_JSON', path: 'extension' });
      return '';
    }
    try {
      const engine = await this.deps.host.get();
      const r = await handleHook(engine, input, {
        state: this.state,
        projectOf: (cwd) => this.projectOf(cwd),
        detach: (job) => { this.pending.add(job); void job.finally(() => this.pending.delete(job)); },
        afterRecord: async (turn) => {
          const s = this.deps.settings();
          const bg = await pickBackgroundModel(s.backgroundModel, s.localModels);
          await engine.capture({ ...turn, entryPath: 'hook', userTrust: 'owner' }, { model: bg });
        },
      });
      this.state.log({ ...r.log, path: 'extension' });
      this.deps.logger.info('hooks.answered', { event: input.event, agent: input.agent, outcome: String(r.log.outcome ?? '') });
      return r.output;
    } catch (e) {
      this.state.log({ event: input.event, agent: input.agent, outcome: 'failed', code: errorCode(e, 'E_INTERNAL'), path: 'extension' });
      return '';
    }
  }

  /** The window's own project for a cwd inside its first workspace folder (memory.projectId applies). */
  private projectOf(cwd: string | undefined): string | undefined {
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (cwd && folder?.uri.scheme === 'file') {
      const rel = path.relative(folder.uri.fsPath, path.resolve(cwd));
      if (!rel.startsWith('..') && !path.isAbsolute(rel)) return this.deps.project().project;
    }
    return defaultProjectOf(cwd, this.state.knownWorkspaces());
  }

  private records(): Partial<Record<AgentTarget, ConnectionRecord>> {
    try { return JSON.parse(readFileSync(this.recordsFile, 'utf8')) as Partial<Record<AgentTarget, ConnectionRecord>>; } catch { return {}; }
  }

  private saveRecords(r: Partial<Record<AgentTarget, ConnectionRecord>>): void {
    mkdirSync(path.dirname(this.recordsFile), { recursive: true, mode: 0o700 });
    const tmp = `${this.recordsFile}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(r, null, 2), { mode: 0o600 });
    renameSync(tmp, this.recordsFile);
  }

  connect(targets: readonly AgentTarget[]): ConnectionRecord[] {
    this.writeLauncher();
    const records = this.records();
    const out: ConnectionRecord[] = [];
    for (const t of targets) {
      const rec = connectAgent(t, this.locations, this.launcher, path.join(this.storeDir, 'agents', 'backups'), records[t] && isConnected(t, this.locations) ? records[t] : undefined);
      records[t] = rec;
      out.push(rec);
      this.deps.logger.info('agents.connected', { target: t });
    }
    this.saveRecords(records);
    return out;
  }

  disconnect(targets: readonly AgentTarget[]): string[] {
    const records = this.records();
    const results: string[] = [];
    for (const t of targets) {
      const rec = records[t];
      if (!rec) continue;
      results.push(disconnectAgent(rec));
      delete records[t];
      this.deps.logger.info('agents.disconnected', { target: t });
    }
    this.saveRecords(records);
    return results;
  }

  status(): AgentStatus[] {
    const activity = this.state.activity();
    return TARGETS.map(({ target, agents }) => ({
      target,
      connected: isConnected(target, this.locations),
      activity: agents.map((agent) => {
        const a: AgentActivity | undefined = activity[agent];
        return { agent, name: AGENT_NAMES[agent], lastRecordedAt: a?.lastRecordedAt, turns: a?.turns ?? 0 };
      }),
    }));
  }

  /** Waits for recordings still running (deactivation, tests). */
  async drain(): Promise<void> {
    while (this.pending.size) await Promise.all([...this.pending]);
  }

  dispose(): void {
    this.disposed = true;
    if (this.retry) clearTimeout(this.retry);
    void this.server?.close();
    this.server = undefined;
  }
}

function ago(t: number | undefined): string {
  if (!t) return 'no turn recorded yet';
  const min = Math.round((Date.now() - t) / 60_000);
  return min < 1 ? 'last turn just now' : min < 120 ? `last turn ${min} min ago` : `last turn ${new Date(t).toLocaleString()}`;
}

/** The dashboard's Agents card: every target, connected or not; hooks per agent with their last recorded turn. */
export function agentRows(status: readonly AgentStatus[]): AgentRowView[] {
  const rows: AgentRowView[] = [];
  for (const s of status) {
    const t = TARGETS.find((x) => x.target === s.target);
    if (!s.activity.length) rows.push({ name: t?.name ?? s.target, kind: 'mcp', connected: s.connected, lastRecordedAt: null, turns: 0 });
    for (const a of s.activity) rows.push({ name: a.name, kind: 'hooks', connected: s.connected, lastRecordedAt: a.lastRecordedAt ?? null, turns: a.turns });
  }
  return rows;
}

/** One line for the status message: connected agents and when each last recorded a turn. */
export function agentsLine(status: readonly AgentStatus[]): string {
  const parts: string[] = [];
  for (const s of status) {
    if (!s.connected) continue;
    if (!s.activity.length) parts.push(TARGETS.find((t) => t.target === s.target)?.name ?? s.target); // MCP: no turns of its own
    for (const a of s.activity) if (a.turns > 0 || s.activity.length === 1 || a.agent === 'copilot-vscode') parts.push(`${a.name} (${ago(a.lastRecordedAt)})`);
  }
  return parts.length ? `agents: ${parts.join(', ')}` : 'no agents connected';
}

export function registerAgentHooks(context: vscode.ExtensionContext, deps: AgentHooksDeps): AgentHooks {
  const hooks = new AgentHooks(context, deps);
  context.subscriptions.push(hooks);
  try { hooks.writeLauncher(); } catch (e) { deps.logger.warn('hooks.launcher_failed', { code: (e as NodeJS.ErrnoException).code ?? 'error' }); }
  void hooks.listen();
  context.subscriptions.push(vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration('memory.vaultPath') || e.affectsConfiguration('memory.projectId')) { try { hooks.writeLauncher(); } catch { /* logged at the next connect */ } }
  }));
  const register = commandRegistrar(context, deps.logger);
  const targetsArg = (v: unknown): AgentTarget[] | undefined =>
    Array.isArray(v) && v.every((x) => AGENT_TARGETS.includes(x as AgentTarget)) ? v as AgentTarget[] : undefined;

  register(CONNECT_AGENTS_COMMAND, 'Connect Agents', async (arg) => {
    let targets = targetsArg(arg);
    if (!targets) {
      const status = hooks.status();
      const picked = await vscode.window.showQuickPick(TARGETS.map((t) => {
        const s = status.find((x) => x.target === t.target)!;
        return { label: t.label, description: s.connected ? 'connected' : '', detail: t.detail(hooks.locations), picked: s.connected, target: t.target };
      }), { canPickMany: true, title: 'Memory: Connect Agents', placeHolder: 'Hooks: agents recall from and record into this memory. MCP: agents get the memory tools.' });
      if (!picked) return undefined;
      targets = picked.map((p) => p.target);
    }
    try {
      const recs = hooks.connect(targets);
      if (!targetsArg(arg)) {
        const hooked = recs.some((r) => r.target === 'copilot' || r.target === 'claude-code');
        const mcp = recs.some((r) => r.target.endsWith('-mcp'));
        const what = [hooked ? 'new agent sessions recall from memory and record their turns' : '', mcp ? 'the agents get the memory tools when they next start' : ''].filter(Boolean).join('; ');
        void vscode.window.showInformationMessage(`Memory: connected ${recs.map((r) => TARGETS.find((t) => t.target === r.target)!.name).join(', ') || 'nothing'}${what ? `: ${what}` : ''}.`);
      }
      return recs;
    } catch (e) {
      if (e instanceof AgentConfigError) { void vscode.window.showErrorMessage(`Memory: ${e.message}`); return undefined; }
      throw e;
    }
  });

  register(DISCONNECT_AGENTS_COMMAND, 'Disconnect Agents', async (arg) => {
    let targets = targetsArg(arg);
    if (!targets) {
      const connected = hooks.status().filter((s) => s.connected);
      if (!connected.length) { void vscode.window.showInformationMessage('Memory: no agents are connected.'); return []; }
      const picked = await vscode.window.showQuickPick(connected.map((s) => {
        const t = TARGETS.find((x) => x.target === s.target)!;
        return { label: t.label, detail: t.detail(hooks.locations), picked: true, target: t.target };
      }), { canPickMany: true, title: 'Memory: Disconnect Agents' });
      if (!picked) return undefined;
      targets = picked.map((p) => p.target);
    }
    try {
      const results = hooks.disconnect(targets);
      if (!targetsArg(arg)) void vscode.window.showInformationMessage(`Memory: disconnected ${targets.length} agent${targets.length === 1 ? '' : 's'}; their files are as they were before.`);
      return results;
    } catch (e) {
      if (e instanceof AgentConfigError) { void vscode.window.showErrorMessage(`Memory: ${e.message}`); return undefined; }
      throw e;
    }
  });
  return hooks;
}
