// Argument parsing and output contract of the `vscode-memory` CLI (SPEC R-CLI-1):
// every command accepts --store, --vault, --json; with --json exactly one JSON document is printed;
// exit 2 for usage, 3 for a refused or unknown item, 1 otherwise.
import { parseArgs } from 'node:util';
import { MemoryError, isMemoryError } from './engine/errors';

export type OptionSpec = Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }>;

export const COMMON_OPTIONS: OptionSpec = {
  store: { type: 'string' },
  vault: { type: 'string' },
  json: { type: 'boolean' },
  // The project vault (issue #15): found from the cwd (a `.memory/` up to the git root) unless named or turned off.
  'project-vault': { type: 'string' },
  'no-project-vault': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
};

export interface ParsedCommand {
  positionals: string[];
  values: Record<string, string | boolean | string[] | undefined>;
}

export function parseCommandArgs(argv: string[], options: OptionSpec): ParsedCommand {
  try {
    const { values, positionals } = parseArgs({
      args: argv, options: { ...COMMON_OPTIONS, ...options }, allowPositionals: true, strict: true,
    });
    return { positionals, values: values as ParsedCommand['values'] };
  } catch (e) {
    throw new MemoryError('E_USAGE', e instanceof Error ? e.message : 'invalid arguments');
  }
}

export function exitCodeFor(e: unknown): number {
  if (isMemoryError(e)) {
    if (e.code === 'E_USAGE') return 2;
    if (e.code === 'E_NOT_FOUND' || e.code === 'E_REFUSED' || e.code === 'E_BAD_ID' || e.code === 'E_SCOPE_UNRESOLVED') return 3;
  }
  return 1;
}

export function errorDocument(e: unknown): { error: { code: string; message: string } } {
  if (isMemoryError(e)) return { error: { code: e.code, message: e.message } };
  const message = e instanceof Error ? e.message : String(e);
  return { error: { code: 'E_INTERNAL', message } };
}

export function stringOpt(v: ParsedCommand['values'][string]): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function intOpt(v: ParsedCommand['values'][string], name: string, min = 1, max = 1_000_000): number | undefined {
  if (v === undefined) return undefined;
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : NaN;
  if (!Number.isInteger(n) || n < min || n > max) throw new MemoryError('E_USAGE', `--${name} must be an integer from ${min} to ${max}`);
  return n;
}
