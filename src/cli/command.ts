// What a CLI command is (one file per command under commands/) and the helpers several share.
import type { MemoryEngine } from '../engine/engine';
import type { BackgroundModel } from '../engine/model/backgroundModel';
import { OpenAiBackgroundModel } from '../engine/model/openaiClient';
import { MemoryError } from '../engine/errors';
import type { Logger } from '../engine/host';
import { stringOpt, type OptionSpec, type ParsedCommand } from '../cliArgs';
import type { ProjectVaultLocation } from '../hooks/projectVaultLocator';

export interface CliIO {
  out: (s: string) => void;
  err: (s: string) => void;
  env: NodeJS.ProcessEnv;
}

export interface Command {
  /** The word after `vscode-memory`. */
  name: string;
  /** Speaks a protocol on stdout itself (mcp): no result is printed. */
  silent?: boolean;
  summary: string;
  usage: string;
  options: OptionSpec;
  run: (p: ParsedCommand, ctx: CommandContext) => Promise<unknown>;
  /** Does not open the engine. */
  standalone?: boolean;
  /** The human (non --json) rendering of the result; default: indented JSON. */
  format?: (result: unknown) => string;
}

export interface CommandContext {
  engine: () => Promise<MemoryEngine>;
  logger: Logger;
  json: boolean;
  io: CliIO;
  storeDir: string;
  vaultDir: string;
  /** The project vault found from the cwd (or --project-vault); attached when the engine opens. Its project is the default --project. */
  projectVault?: ProjectVaultLocation;
  /** The folder of the running CLI bundle (dist/ when installed): sql-wasm.wasm, bench.js and ../package.json sit there. */
  binDir: string;
  /** Loads a bundle by path at run time (the entry's own `require`, so the bundler never follows it). */
  loadModule: (file: string) => unknown;
}

export const READ_OPTS: OptionSpec = {
  project: { type: 'string' }, 'project-type': { type: 'string' }, conversation: { type: 'string' },
};

/** The read context of a command; without --project, the project of the project vault found from the cwd. */
export function readCtx(p: ParsedCommand, c?: Pick<CommandContext, 'projectVault'>) {
  return {
    conversation: stringOpt(p.values.conversation),
    project: stringOpt(p.values.project) ?? c?.projectVault?.projectId,
    projectType: stringOpt(p.values['project-type']),
  };
}

export function one(p: ParsedCommand, what: string): string {
  if (p.positionals.length !== 1) throw new MemoryError('E_USAGE', `expected exactly one ${what}`);
  return p.positionals[0]!;
}

export function parseAt(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const t = Date.parse(v);
  if (!Number.isFinite(t)) throw new MemoryError('E_USAGE', '--at must be an ISO-8601 date/time');
  return t;
}

/**
 * `--base-url URL --model M` (both or neither) as the command's background model: an OpenAI-compatible
 * server is the CLI's model. Refuses positionals (the command takes no arguments).
 */
export function backgroundModelOption(p: ParsedCommand, command: string): BackgroundModel | undefined {
  if (p.positionals.length) throw new MemoryError('E_USAGE', `${command} takes no arguments`);
  const baseUrl = stringOpt(p.values['base-url']);
  const modelId = stringOpt(p.values.model);
  if (!baseUrl !== !modelId) throw new MemoryError('E_USAGE', `${command} needs both --base-url and --model for a background model, or neither`);
  let host = '';
  if (baseUrl) { try { host = new URL(baseUrl).host; } catch { throw new MemoryError('E_USAGE', '--base-url is not a URL'); } }
  return baseUrl && modelId ? OpenAiBackgroundModel.fromSetting({ name: host, baseUrl, model: modelId }) : undefined;
}

export const BACKGROUND_MODEL_OPTS: OptionSpec = { 'base-url': { type: 'string' }, model: { type: 'string' } };
