// The CLI's main: finds the command (commands/), parses its options, opens the engine on demand, prints
// the result (--json: one JSON document; else the command's `format`) and maps errors to exit codes.
import * as path from 'node:path';
import { errorDocument, exitCodeFor, parseCommandArgs, stringOpt } from '../cliArgs';
import { MemoryEngine } from '../engine/engine';
import { MemoryError } from '../engine/errors';
import { formatFields, type LogFields, type Logger } from '../engine/host';
import { defaultStoreDir, defaultVaultDir } from '../engine/paths';
import { HookState } from '../hooks/hookState';
import { attachProjectVault, locateProjectVault } from '../hooks/projectVaultLocator';
import type { CliIO, Command, CommandContext } from './command';
import { COMMANDS } from './commands';

/** What the entry file (src/cli.ts, bundled as dist/cli.js) knows about itself. */
export interface CliHost {
  /** The folder of the running bundle. */
  binDir: string;
  loadModule: (file: string) => unknown;
}

const HOOK_USAGE = 'hook [--agent copilot|claude-code] [--event NAME]';

/** Logs go to stderr only with --verbose, as event names and fields — never memory text. */
function stderrLogger(io: CliIO, verbose: boolean): Logger {
  const line = (level: string) => (event: string, fields?: LogFields) => {
    if (verbose || level === 'error') io.err(`[${level}] ${event} ${formatFields(fields)}`.trimEnd());
  };
  return { trace: () => undefined, info: line('info'), warn: line('warn'), error: line('error') };
}

function usage(): string {
  const lines = ['usage: vscode-memory <command> [options] [--store DIR] [--vault DIR] [--project-vault DIR | --no-project-vault] [--json] [--verbose]', '', 'commands:'];
  for (const cmd of COMMANDS) lines.push(`  ${cmd.usage.padEnd(44)} ${cmd.summary}`);
  lines.push(`  ${HOOK_USAGE.padEnd(44)} an agent hook: JSON on stdin, context (or nothing) on stdout, always exit 0`);
  return lines.join('\n');
}

function human(cmd: Command, v: unknown): string {
  if (typeof v === 'string') return v;
  return cmd.format ? cmd.format(v) : JSON.stringify(v, null, 2);
}

/** Runs one CLI invocation; returns the exit code. */
export async function runCliWith(argv: string[], io: CliIO, host: CliHost): Promise<number> {
  const json = argv.includes('--json');
  const verbose = argv.includes('--verbose');
  const args = argv.filter((a) => a !== '--verbose');
  const name = args[0];
  let engine: MemoryEngine | undefined;
  try {
    if (!name || name === '--help' || name === '-h' || name === 'help') {
      if (json) io.out(JSON.stringify({ commands: COMMANDS.map((c) => c.name) }));
      else io.out(usage());
      return name ? 0 : 2;
    }
    const cmd = COMMANDS.find((c) => c.name === name);
    if (!cmd) throw new MemoryError('E_USAGE', `unknown command "${name}" (try --help)`);
    const parsed = parseCommandArgs(args.slice(1), cmd.options);
    if (parsed.values.help) {
      io.out(`usage: vscode-memory ${cmd.usage}`);
      return 0;
    }
    const storeDir = path.resolve(stringOpt(parsed.values.store) ?? defaultStoreDir(io.env));
    const vaultDir = path.resolve(stringOpt(parsed.values.vault) ?? defaultVaultDir(storeDir));
    const logger = stderrLogger(io, verbose);
    const projectVault = cmd.standalone ? undefined : locateProjectVault(process.cwd(), {
      override: stringOpt(parsed.values['project-vault']), off: parsed.values['no-project-vault'] === true, env: io.env,
      known: new HookState(storeDir).knownWorkspaces(),
    });
    const ctx: CommandContext = {
      json, io, storeDir, vaultDir, logger, binDir: host.binDir, loadModule: host.loadModule, projectVault,
      engine: async () => {
        if (engine) return engine;
        engine = await MemoryEngine.open({ storeDir, vaultDir, logger });
        await attachProjectVault(engine, projectVault, logger);
        return engine;
      },
    };
    const result = await cmd.run(parsed, ctx);
    if (!cmd.silent) io.out(json ? JSON.stringify(result) : human(cmd, result));
    return 0;
  } catch (e) {
    const code = exitCodeFor(e);
    if (json) io.out(JSON.stringify(errorDocument(e)));
    else io.err(`vscode-memory: ${errorDocument(e).error.message}${code === 2 ? '\n' + usage() : ''}`);
    return code;
  } finally {
    if (engine) await engine.close().catch(() => undefined);
  }
}
