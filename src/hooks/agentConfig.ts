// Writing and removing Memory's entries in the agents' own hooks files (vscode-free, so unit tests and the
// extension share it). Two files:
// - Copilot: `~/.copilot/hooks/vscode-memory.json`, our own file, read by Copilot's agent in VS Code (the
//   "copilot-personal" hooks location of VS Code 1.139's workbench) and by Copilot CLI (its user hooks folder,
//   docs.github.com/en/copilot/reference/hooks-reference "Hooks locations"); format `{"version": 1, "hooks":
//   {"sessionStart": [{"type": "command", "bash", "powershell", "timeoutSec"}]}}` (cli-hooks-reference).
// - Claude Code: `~/.claude/settings.json`, the user's own file (docs.anthropic.com/en/docs/claude-code/hooks):
//   our matcher groups `{"hooks": [{"type": "command", "command", "timeout"}]}` are appended to its `hooks`
//   arrays and nothing else is touched. The original bytes are kept as a backup; disconnecting restores them
//   byte for byte when the file still holds exactly what we wrote, else removes only our entries.
// - MCP (memory tools for agents outside VS Code, `vscode-memory mcp`): one `vscode-memory` entry under
//   `mcpServers` in Copilot CLI's `~/.copilot/mcp-config.json` (docs.github.com/en/copilot/how-tos/copilot-cli/
//   customize-copilot/add-mcp-servers: `{"mcpServers": {name: {"type": "stdio", "command", "args", "env",
//   "tools": ["*"]}}}`) and in Claude Code's user-scope `~/.claude.json` (code.claude.com/docs/en/mcp, "user"
//   scope: `{"mcpServers": {name: {"type": "stdio", "command", "args", "env"}}}`). Both files hold other servers
//   and, for Claude Code, its whole state: only our key is added, and only our key is removed again.
// Every command runs a launcher (in the extension's global storage), never `node` from PATH.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmdirSync, unlinkSync, writeFileSync, copyFileSync } from 'node:fs';
import * as path from 'node:path';

export type AgentTarget = 'copilot' | 'claude-code' | 'copilot-cli-mcp' | 'claude-code-mcp';
export const AGENT_TARGETS: readonly AgentTarget[] = ['copilot', 'claude-code', 'copilot-cli-mcp', 'claude-code-mcp'];

export interface LauncherPaths {
  /** The hook launcher for sh (macOS, Linux). */
  sh: string;
  /** The hook launcher for Windows (cmd). */
  cmd: string;
  /** The MCP server launcher for sh (`vscode-memory mcp`). */
  mcpSh: string;
  /** The MCP server launcher for Windows. */
  mcpCmd: string;
}

/** The name of our entry under `mcpServers`. */
export const MCP_SERVER_NAME = 'vscode-memory';
/** Marks the MCP launcher (found again whatever its folder). */
export const MCP_MARK = 'memory-mcp';

/** Marks a command as ours (found again on disconnect whatever the launcher's folder). */
export const COMMAND_MARK = 'memory-hook';

const shQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const psQuote = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** The command line an agent runs for one event. */
export function hookCommandLine(launcher: Pick<LauncherPaths, 'sh' | 'cmd'>, agent: 'copilot' | 'claude-code', event: string, windows = process.platform === 'win32'): string {
  return windows ? `& ${psQuote(launcher.cmd)} --agent ${agent} --event ${event}` : `${shQuote(launcher.sh)} --agent ${agent} --event ${event}`;
}

/** Copilot events (the CLI's camelCase names, which VS Code also maps) and their time limits in seconds. */
const COPILOT_EVENTS: [string, number][] = [['sessionStart', 10], ['userPromptSubmitted', 10], ['agentStop', 30], ['subagentStop', 30]];
const CLAUDE_EVENTS: [string, number][] = [['SessionStart', 10], ['UserPromptSubmit', 10], ['Stop', 30], ['SubagentStop', 30], ['PreCompact', 30]];

export function copilotHooksDocument(launcher: LauncherPaths): string {
  const hooks: Record<string, unknown[]> = {};
  for (const [event, timeoutSec] of COPILOT_EVENTS) {
    hooks[event] = [{
      type: 'command',
      bash: hookCommandLine(launcher, 'copilot', event, false),
      powershell: hookCommandLine(launcher, 'copilot', event, true),
      timeoutSec,
    }];
  }
  return JSON.stringify({ version: 1, hooks }, null, 2) + '\n';
}

export interface AgentLocations {
  copilotFile: string;
  claudeSettings: string;
  /** Copilot CLI's MCP servers. */
  copilotMcpFile: string;
  /** Claude Code's user-scope configuration (MCP servers among its state). */
  claudeUserConfig: string;
}

export function agentLocations(home: string, env: NodeJS.ProcessEnv = process.env): AgentLocations {
  const copilotHome = env.COPILOT_HOME || path.join(home, '.copilot');
  return {
    copilotFile: path.join(copilotHome, 'hooks', 'vscode-memory.json'), claudeSettings: path.join(home, '.claude', 'settings.json'),
    copilotMcpFile: path.join(copilotHome, 'mcp-config.json'), claudeUserConfig: path.join(home, '.claude.json'),
  };
}

/** The file a target writes. */
export function targetFile(target: AgentTarget, loc: AgentLocations): string {
  switch (target) {
    case 'copilot': return loc.copilotFile;
    case 'claude-code': return loc.claudeSettings;
    case 'copilot-cli-mcp': return loc.copilotMcpFile;
    case 'claude-code-mcp': return loc.claudeUserConfig;
  }
}

/** Our MCP server entry for an agent's `mcpServers`: the MCP launcher, nothing from PATH. */
export function mcpServerEntry(target: 'copilot-cli-mcp' | 'claude-code-mcp', launcher: LauncherPaths, windows = process.platform === 'win32'): Record<string, unknown> {
  const entry: Record<string, unknown> = { type: 'stdio', command: windows ? launcher.mcpCmd : launcher.mcpSh, args: [], env: {} };
  if (target === 'copilot-cli-mcp') entry.tools = ['*'];
  return entry;
}

function isOurMcpEntry(v: unknown): boolean {
  const c = (v as { command?: unknown } | null)?.command;
  return typeof c === 'string' && c.includes(MCP_MARK);
}

/** Our entry added to (or replaced in) a settings object's `mcpServers`; another server of that name is refused. */
export function withMcpServer(settings: Record<string, unknown>, entry: Record<string, unknown>, file: string): Record<string, unknown> {
  const out = { ...settings };
  const servers = (typeof out.mcpServers === 'object' && out.mcpServers !== null && !Array.isArray(out.mcpServers)) ? { ...(out.mcpServers as Record<string, unknown>) } : {};
  if (servers[MCP_SERVER_NAME] !== undefined && !isOurMcpEntry(servers[MCP_SERVER_NAME])) {
    throw new AgentConfigError('E_AGENT_SETTINGS_INVALID', `${file} already has another MCP server named "${MCP_SERVER_NAME}"; it was left unchanged`);
  }
  servers[MCP_SERVER_NAME] = entry;
  out.mcpServers = servers;
  return out;
}

/** Our entry removed from `mcpServers` (other servers untouched; an emptied `mcpServers` stays as `{}`). */
export function withoutMcpServer(settings: Record<string, unknown>): Record<string, unknown> {
  const out = { ...settings };
  if (typeof out.mcpServers !== 'object' || out.mcpServers === null || Array.isArray(out.mcpServers)) return out;
  const servers = { ...(out.mcpServers as Record<string, unknown>) };
  if (isOurMcpEntry(servers[MCP_SERVER_NAME])) delete servers[MCP_SERVER_NAME];
  out.mcpServers = servers;
  return out;
}

/** What connecting changed, kept in our storage so disconnecting can undo exactly that. */
export interface ConnectionRecord {
  target: AgentTarget;
  file: string;
  connectedAt: number;
  /** Folders we created (removed again when empty). */
  createdDirs: string[];
  /** Backup of the file's bytes before we wrote it; null when it did not exist. */
  backup: string | null;
  /** sha256 of the bytes we wrote. */
  writtenHash: string;
}

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

function mkdirs(dir: string): string[] {
  const created: string[] = [];
  let d = dir;
  while (!existsSync(d)) { created.unshift(d); const up = path.dirname(d); if (up === d) break; d = up; }
  for (const c of created) mkdirSync(c, { mode: 0o700 });
  return created.reverse(); // deepest first, for removal
}

function atomicWrite(file: string, data: string | Buffer): void {
  const tmp = `${file}.${process.pid}.memory-tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, file);
}

export class AgentConfigError extends Error {
  constructor(readonly code: 'E_AGENT_SETTINGS_INVALID', message: string) { super(message); }
}

/** Our matcher groups added to a Claude Code settings object (a parsed copy; the input is not changed). */
export function withClaudeHooks(settings: Record<string, unknown>, launcher: LauncherPaths): Record<string, unknown> {
  const out = { ...settings };
  const hooks = (typeof out.hooks === 'object' && out.hooks !== null && !Array.isArray(out.hooks)) ? { ...(out.hooks as Record<string, unknown>) } : {};
  for (const [event, timeout] of CLAUDE_EVENTS) {
    const list = Array.isArray(hooks[event]) ? [...(hooks[event] as unknown[])].filter((g) => !isOurGroup(g)) : [];
    list.push({ hooks: [{ type: 'command', command: hookCommandLine(launcher, 'claude-code', event), timeout }] });
    hooks[event] = list;
  }
  out.hooks = hooks;
  return out;
}

function isOurGroup(g: unknown): boolean {
  const hs = (g as { hooks?: unknown })?.hooks;
  return Array.isArray(hs) && hs.some((h) => typeof (h as { command?: unknown })?.command === 'string' && ((h as { command: string }).command).includes(COMMAND_MARK));
}

/** Our entries removed from a Claude Code settings object; empty arrays / `hooks` we leave behind are dropped. */
export function withoutClaudeHooks(settings: Record<string, unknown>): Record<string, unknown> {
  const out = { ...settings };
  if (typeof out.hooks !== 'object' || out.hooks === null || Array.isArray(out.hooks)) return out;
  const hooks = { ...(out.hooks as Record<string, unknown>) };
  for (const [event] of CLAUDE_EVENTS) {
    if (!Array.isArray(hooks[event])) continue;
    const kept = (hooks[event] as unknown[]).filter((g) => !isOurGroup(g));
    if (kept.length) hooks[event] = kept; else delete hooks[event];
  }
  if (Object.keys(hooks).length) out.hooks = hooks; else delete out.hooks;
  return out;
}

/** Writes our hooks for `target`; returns the record to keep. `backupDir` holds the original bytes. */
export function connectAgent(target: AgentTarget, loc: AgentLocations, launcher: LauncherPaths, backupDir: string, previous?: ConnectionRecord): ConnectionRecord {
  if (target === 'copilot') {
    const createdDirs = previous?.createdDirs ?? mkdirs(path.dirname(loc.copilotFile));
    const backup = previous ? previous.backup : existsSync(loc.copilotFile) ? saveBackup(loc.copilotFile, backupDir, 'copilot') : null;
    const doc = copilotHooksDocument(launcher);
    atomicWrite(loc.copilotFile, doc);
    return { target, file: loc.copilotFile, connectedAt: Date.now(), createdDirs, backup, writtenHash: sha(doc) };
  }
  const file = targetFile(target, loc);
  const transform = (parsed: Record<string, unknown>): Record<string, unknown> => target === 'claude-code'
    ? withClaudeHooks(parsed, launcher)
    : withMcpServer(parsed, mcpServerEntry(target, launcher), file);
  let original: Buffer | undefined;
  try { original = readFileSync(file); } catch { /* no settings yet */ }
  let parsed: Record<string, unknown> = {};
  if (original !== undefined && original.toString('utf8').trim()) {
    try {
      const v = JSON.parse(original.toString('utf8')) as unknown;
      if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('not an object');
      parsed = v as Record<string, unknown>;
    } catch {
      throw new AgentConfigError('E_AGENT_SETTINGS_INVALID', `${file} is not a JSON object; it was left unchanged`);
    }
  }
  const next = transform(parsed); // may refuse (another server of our name): nothing written yet
  const createdDirs = previous?.createdDirs ?? mkdirs(path.dirname(file));
  const backup = previous ? previous.backup : original !== undefined ? saveBackup(file, backupDir, target) : null;
  const indent = original ? detectIndent(original.toString('utf8')) : 2;
  const text = JSON.stringify(next, null, indent) + '\n';
  atomicWrite(file, text);
  return { target, file, connectedAt: Date.now(), createdDirs, backup, writtenHash: sha(text) };
}

/** Undoes `connectAgent`: the original bytes when the file is as we left it, else only our entries go. */
export function disconnectAgent(rec: ConnectionRecord): 'restored' | 'removed-entries' | 'already-gone' {
  let now: Buffer | undefined;
  try { now = readFileSync(rec.file); } catch { /* deleted meanwhile */ }
  let result: 'restored' | 'removed-entries' | 'already-gone';
  if (now === undefined) result = 'already-gone';
  else if (sha(now) === rec.writtenHash || rec.target === 'copilot') {
    if (rec.backup) copyFileSync(rec.backup, rec.file); else unlinkSync(rec.file);
    result = 'restored';
  } else {
    // The user changed the file since: keep their changes, take out ours.
    let parsed: Record<string, unknown>;
    try { parsed = JSON.parse(now.toString('utf8')) as Record<string, unknown>; } catch {
      throw new AgentConfigError('E_AGENT_SETTINGS_INVALID', `${rec.file} is no longer valid JSON; remove the "${COMMAND_MARK}" hooks by hand`);
    }
    const rest = rec.target === 'claude-code' ? withoutClaudeHooks(parsed) : withoutMcpServer(parsed);
    atomicWrite(rec.file, JSON.stringify(rest, null, detectIndent(now.toString('utf8'))) + '\n');
    result = 'removed-entries';
  }
  if (rec.backup) { try { unlinkSync(rec.backup); } catch { /* gone */ } }
  for (const d of rec.createdDirs) { try { rmdirSync(d); } catch { /* not empty: keep */ } }
  return result;
}

function saveBackup(file: string, backupDir: string, name: string): string {
  mkdirSync(backupDir, { recursive: true, mode: 0o700 });
  const dest = path.join(backupDir, `${name}-${Date.now()}.bak`);
  copyFileSync(file, dest);
  return dest;
}

function detectIndent(text: string): number | string {
  const m = /^\{\s*\n([ \t]+)"/.exec(text);
  if (!m) return 2;
  return m[1]!.startsWith('\t') ? '\t' : m[1]!.length;
}

/** Does `file` hold our hooks (connected outside this window too)? */
export function isConnected(target: AgentTarget, loc: AgentLocations): boolean {
  try {
    const text = readFileSync(targetFile(target, loc), 'utf8');
    if (target === 'copilot' || target === 'claude-code') return text.includes(COMMAND_MARK);
    const servers = (JSON.parse(text) as { mcpServers?: Record<string, unknown> }).mcpServers;
    return isOurMcpEntry(servers?.[MCP_SERVER_NAME]);
  } catch {
    return false;
  }
}

/**
 * The launcher scripts' text: the editor's own runtime as Node, the hook entry, the store, the vault and the
 * socket (named explicitly: an agent's environment — TMPDIR, XDG_RUNTIME_DIR — need not match VS Code's).
 */
export function launcherScripts(o: { execPath: string; hookJs: string; cliJs?: string; storeDir: string; vaultDir: string; socket: string }): { sh: string; cmd: string; mcpSh: string; mcpCmd: string } {
  const sh = [
    '#!/bin/sh',
    '# Memory for VS Code: runs an agent hook with the editor\'s own runtime (no node on PATH needed).',
    '# Rewritten on every activation (an extension update moves its folder); do not edit.',
    `ELECTRON_RUN_AS_NODE=1 exec ${shQuote(o.execPath)} ${shQuote(o.hookJs)} --store ${shQuote(o.storeDir)} --vault ${shQuote(o.vaultDir)} --socket ${shQuote(o.socket)} "$@"`,
    '',
  ].join('\n');
  const q = (s: string) => `"${s.replace(/"/g, '')}"`;
  const cmd = [
    '@echo off',
    'rem Memory for VS Code: runs an agent hook with the editor\'s own runtime. Rewritten on every activation.',
    'set ELECTRON_RUN_AS_NODE=1',
    `${q(o.execPath)} ${q(o.hookJs)} --store ${q(o.storeDir)} --vault ${q(o.vaultDir)} --socket ${q(o.socket)} %*`,
    '',
  ].join('\r\n');
  // The MCP server: `vscode-memory mcp` from the shipped CLI bundle, on the same store and vault; its project is
  // the folder the agent starts it in (as for the hooks).
  const cliJs = o.cliJs ?? path.join(path.dirname(o.hookJs), 'cli.js');
  const mcpSh = [
    '#!/bin/sh',
    '# Memory for VS Code: the memory tools as an MCP server (stdio) for agents outside VS Code, with the editor\'s runtime.',
    '# Rewritten on every activation (an extension update moves its folder); do not edit.',
    `ELECTRON_RUN_AS_NODE=1 exec ${shQuote(o.execPath)} ${shQuote(cliJs)} mcp --store ${shQuote(o.storeDir)} --vault ${shQuote(o.vaultDir)} "$@"`,
    '',
  ].join('\n');
  const mcpCmd = [
    '@echo off',
    'rem Memory for VS Code: the memory tools as an MCP server (stdio). Rewritten on every activation.',
    'set ELECTRON_RUN_AS_NODE=1',
    `${q(o.execPath)} ${q(cliJs)} mcp --store ${q(o.storeDir)} --vault ${q(o.vaultDir)} %*`,
    '',
  ].join('\r\n');
  return { sh, cmd, mcpSh, mcpCmd };
}
