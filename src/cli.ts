// `vscode-memory`: the engine without VS Code (SPEC R-CLI-1), for scripts, other agents' hooks,
// benchmarks and support. It opens the same store as the extension, under the same lock and journal.
import { existsSync, readFileSync, accessSync, constants as fsc } from 'node:fs';
import * as path from 'node:path';
import { COMMON_OPTIONS, errorDocument, exitCodeFor, intOpt, parseCommandArgs, stringOpt, type OptionSpec, type ParsedCommand } from './cliArgs';
import { MemoryEngine } from './engine/engine';
import { MemoryError } from './engine/errors';
import { formatFields, type LogFields, type Logger } from './engine/host';
import { defaultStoreDir, defaultVaultDir } from './engine/paths';
import { NOTE_KINDS, type NoteKind } from './engine/types';
import { describeGate, gate, gateModelStatus } from './engine/write/poisonGate';
import { OpenAiBackgroundModel } from './engine/model/openaiClient';
import { isDay } from './engine/maintain/quarantine';
import { runHookCommand } from './hooks/hookCommand';
import { defaultProjectOf } from './hooks/hookHandler';
import { HookState } from './hooks/hookState';

export interface CliIO {
  out: (s: string) => void;
  err: (s: string) => void;
  env: NodeJS.ProcessEnv;
}

interface Command {
  /** Speaks a protocol on stdout itself (mcp): no result is printed. */
  silent?: boolean;
  summary: string;
  usage: string;
  options: OptionSpec;
  run: (p: ParsedCommand, ctx: CommandContext) => Promise<unknown>;
  /** Does not open the engine. */
  standalone?: boolean;
}

interface CommandContext {
  engine: () => Promise<MemoryEngine>;
  logger: Logger;
  json: boolean;
  io: CliIO;
  storeDir: string;
  vaultDir: string;
}

/** Logs go to stderr only with --verbose, as event names and fields — never memory text. */
function stderrLogger(io: CliIO, verbose: boolean): Logger {
  const line = (level: string) => (event: string, fields?: LogFields) => {
    if (verbose || level === 'error') io.err(`[${level}] ${event} ${formatFields(fields)}`.trimEnd());
  };
  return { trace: () => undefined, info: line('info'), warn: line('warn'), error: line('error') };
}

const READ_OPTS: OptionSpec = {
  project: { type: 'string' }, 'project-type': { type: 'string' }, conversation: { type: 'string' },
};

function readCtx(p: ParsedCommand) {
  return {
    conversation: stringOpt(p.values.conversation),
    project: stringOpt(p.values.project),
    projectType: stringOpt(p.values['project-type']),
  };
}

function one(p: ParsedCommand, what: string): string {
  if (p.positionals.length !== 1) throw new MemoryError('E_USAGE', `expected exactly one ${what}`);
  return p.positionals[0]!;
}

function parseAt(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const t = Date.parse(v);
  if (!Number.isFinite(t)) throw new MemoryError('E_USAGE', '--at must be an ISO-8601 date/time');
  return t;
}

const COMMANDS: Record<string, Command> = {
  status: {
    summary: 'engine figures (embedder, counts, vectors, switches, health)',
    usage: 'status',
    options: {},
    run: async (_p, c) => (await c.engine()).status(),
  },
  doctor: {
    summary: 'checks the installation and the store without changing anything',
    usage: 'doctor',
    options: {},
    standalone: true,
    run: async (_p, c) => doctor(c),
  },
  remember: {
    summary: 'pinned save of a note (bypasses the save filter)',
    usage: 'remember TEXT [--project ID] [--kind user|feedback|domain|project|reference]',
    options: { project: { type: 'string' }, kind: { type: 'string' } },
    run: async (p, c) => {
      const kind = stringOpt(p.values.kind);
      if (kind !== undefined && !NOTE_KINDS.includes(kind as NoteKind)) throw new MemoryError('E_USAGE', `--kind must be one of ${NOTE_KINDS.join(', ')}`);
      const r = await (await c.engine()).remember({ text: p.positionals.join(' '), project: stringOpt(p.values.project), kind: kind as NoteKind | undefined });
      return { id: r.id };
    },
  },
  'record-turn': {
    summary: 'the per-turn save, exactly as the chat participant does it',
    usage: 'record-turn --conversation ID --user TEXT --assistant TEXT [--project ID] [--project-type T] [--title T] [--provider P] [--model M] [--trust owner|peer|ingested] [--at ISO-8601]',
    options: {
      conversation: { type: 'string' }, user: { type: 'string' }, assistant: { type: 'string' }, project: { type: 'string' },
      'project-type': { type: 'string' }, title: { type: 'string' }, provider: { type: 'string' }, model: { type: 'string' },
      trust: { type: 'string' }, at: { type: 'string' },
    },
    run: async (p, c) => {
      const conversation = stringOpt(p.values.conversation);
      const user = stringOpt(p.values.user);
      const assistant = stringOpt(p.values.assistant);
      if (!conversation || user === undefined || assistant === undefined) throw new MemoryError('E_USAGE', 'record-turn needs --conversation, --user and --assistant');
      const trust = stringOpt(p.values.trust);
      if (trust !== undefined && !['owner', 'peer', 'ingested'].includes(trust)) throw new MemoryError('E_USAGE', '--trust must be owner, peer or ingested');
      const r = await (await c.engine()).recordTurn({
        conversation, user, assistant, project: stringOpt(p.values.project), projectType: stringOpt(p.values['project-type']),
        title: stringOpt(p.values.title), provider: stringOpt(p.values.provider), model: stringOpt(p.values.model),
        trust: trust as 'owner' | 'peer' | 'ingested' | undefined, at: parseAt(stringOpt(p.values.at)), entryPath: 'cli',
      });
      return { ids: r.ids, skipped: r.skipped };
    },
  },
  flush: {
    summary: 'flushes raw-record buffers so derivation runs now',
    usage: 'flush [--conversation ID]',
    options: { conversation: { type: 'string' } },
    run: async (p, c) => ({ flushed: await (await c.engine()).flush(stringOpt(p.values.conversation)) }),
  },
  search: {
    summary: 'ranked hits with ids',
    usage: 'search QUERY [--project ID] [--conversation ID] [--k N]',
    options: { ...READ_OPTS, k: { type: 'string' } },
    run: async (p, c) => {
      const q = p.positionals.join(' ');
      if (!q.trim()) throw new MemoryError('E_USAGE', 'search needs a query');
      const hits = await (await c.engine()).search(q, readCtx(p), intOpt(p.values.k, 'k', 1, 100));
      return { hits: hits.map((h) => ({ id: h.id, kind: h.kind, score: h.score, trust: h.trust, text: h.text })) };
    },
  },
  recall: {
    summary: 'the recall block exactly as it would be prepended',
    usage: 'recall MESSAGE [--project ID] [--conversation ID] [--window TOKENS] [--no-tools]',
    options: { ...READ_OPTS, window: { type: 'string' }, 'no-tools': { type: 'boolean' } },
    run: async (p, c) => {
      const message = p.positionals.join(' ');
      const engine = await c.engine();
      // A conversation id never seen before is a new conversation in the given project (a script's first turn).
      const ctx = readCtx(p);
      const r = await engine.recall({ ...ctx, message, window: intOpt(p.values.window, 'window', 1, 100_000_000), canUseTools: p.values['no-tools'] !== true });
      return { block: r.block, items: r.items, ...(r.reason ? { reason: r.reason } : {}) };
    },
  },
  expand: {
    summary: 'opens one memory by id',
    usage: 'expand ID [--project ID] [--conversation ID]',
    options: READ_OPTS,
    run: async (p, c) => (await c.engine()).expand(one(p, 'id'), readCtx(p)),
  },
  forget: {
    summary: 'deletes one memory (and rows derived only from it)',
    usage: 'forget ID',
    options: {},
    run: async (p, c) => (await c.engine()).forget(one(p, 'id'), 'cli'),
  },
  gate: {
    summary: "the poison gate's verdict per text",
    usage: 'gate TEXT | gate --file F.jsonl',
    options: { file: { type: 'string' } },
    standalone: true,
    run: async (p) => {
      const file = stringOpt(p.values.file);
      const texts: string[] = [];
      if (file) {
        let content: string;
        try {
          content = readFileSync(file, 'utf8');
        } catch {
          throw new MemoryError('E_NOT_FOUND', 'cannot read the --file');
        }
        content.split('\n').forEach((line, i) => {
          if (!line.trim()) return;
          let v: unknown;
          try {
            v = JSON.parse(line);
          } catch {
            throw new MemoryError('E_USAGE', `line ${i + 1} of --file is not JSON`);
          }
          const t = (v as { text?: unknown })?.text;
          if (typeof t !== 'string') throw new MemoryError('E_USAGE', `line ${i + 1} of --file has no "text" string`);
          texts.push(t);
        });
      } else {
        if (p.positionals.length === 0) throw new MemoryError('E_USAGE', 'gate needs TEXT or --file');
        texts.push(p.positionals.join(' '));
      }
      return { verdicts: texts.map((t) => { const g = gate(t); return { verdict: g.verdict, detector: g.detector }; }) };
    },
  },
  'load-doc': {
    summary: 'loads a Markdown document as pinned sections, idempotently (R-WRITE-8)',
    usage: 'load-doc FILE [--project ID] [--title T]',
    options: { project: { type: 'string' }, title: { type: 'string' } },
    run: async (p, c) => {
      const r = await (await c.engine()).loadDocument({ path: path.resolve(one(p, 'file')), project: stringOpt(p.values.project), title: stringOpt(p.values.title) });
      return r;
    },
  },
  quarantine: {
    summary: 'hides (or releases) what a provider wrote (R-QUAR-1..3)',
    usage: 'quarantine providers | list | preview|apply --provider P [--provider Q …] [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--time-zone Z] | release ID',
    options: { provider: { type: 'string', multiple: true }, from: { type: 'string' }, to: { type: 'string' }, 'time-zone': { type: 'string' } },
    run: async (p, c) => {
      const [sub, ...rest] = p.positionals;
      const engine = () => c.engine();
      const selection = () => {
        const providers = Array.isArray(p.values.provider) ? p.values.provider : [];
        if (!providers.length) throw new MemoryError('E_USAGE', `quarantine ${sub} needs at least one --provider`);
        for (const k of ['from', 'to'] as const) {
          const v = stringOpt(p.values[k]);
          if (v !== undefined && !isDay(v)) throw new MemoryError('E_USAGE', `--${k} must be a day written YYYY-MM-DD`);
        }
        return { providers, from: stringOpt(p.values.from), to: stringOpt(p.values.to), timeZone: stringOpt(p.values['time-zone']) };
      };
      const noArgs = () => { if (rest.length) throw new MemoryError('E_USAGE', `quarantine ${sub} takes no further arguments`); };
      switch (sub) {
        case 'providers': noArgs(); return { providers: (await engine()).quarantineProviders() };
        case 'list': noArgs(); return { quarantines: (await engine()).quarantineHistory() };
        case 'preview': noArgs(); return (await engine()).quarantinePreview(selection());
        case 'apply': noArgs(); return (await engine()).quarantineApply(selection());
        case 'release': {
          if (rest.length !== 1) throw new MemoryError('E_USAGE', 'quarantine release needs exactly one ID');
          return (await engine()).quarantineRelease(rest[0]!);
        }
        default: throw new MemoryError('E_USAGE', 'quarantine needs one of: providers, list, preview, apply, release');
      }
    },
  },
  consolidate: {
    summary: 'promotes recurring memory to notes, archives low-salience items and expired working blocks (R-MAINT-1)',
    usage: 'consolidate [--base-url URL --model M]',
    options: { 'base-url': { type: 'string' }, model: { type: 'string' } },
    run: async (p, c) => {
      if (p.positionals.length) throw new MemoryError('E_USAGE', 'consolidate takes no arguments');
      const baseUrl = stringOpt(p.values['base-url']);
      const modelId = stringOpt(p.values.model);
      if (!baseUrl !== !modelId) throw new MemoryError('E_USAGE', 'consolidate needs both --base-url and --model for a background model, or neither');
      // Without a model nothing is promoted (skippedNoModel); an OpenAI-compatible server is the CLI's model.
      let host = '';
      if (baseUrl) { try { host = new URL(baseUrl).host; } catch { throw new MemoryError('E_USAGE', '--base-url is not a URL'); } }
      const model = baseUrl && modelId ? OpenAiBackgroundModel.fromSetting({ name: host, baseUrl, model: modelId }) : undefined;
      return (await c.engine()).consolidate({ model });
    },
  },
  reflect: {
    summary: 'writes the morning briefing about yesterday to reflections/<today>.md (R-MAINT-5)',
    usage: 'reflect [--base-url URL --model M]',
    options: { 'base-url': { type: 'string' }, model: { type: 'string' } },
    run: async (p, c) => {
      if (p.positionals.length) throw new MemoryError('E_USAGE', 'reflect takes no arguments');
      const baseUrl = stringOpt(p.values['base-url']);
      const modelId = stringOpt(p.values.model);
      if (!baseUrl !== !modelId) throw new MemoryError('E_USAGE', 'reflect needs both --base-url and --model for a background model, or neither');
      // Without a model only the deterministic part is written.
      let host = '';
      if (baseUrl) { try { host = new URL(baseUrl).host; } catch { throw new MemoryError('E_USAGE', '--base-url is not a URL'); } }
      const model = baseUrl && modelId ? OpenAiBackgroundModel.fromSetting({ name: host, baseUrl, model: modelId }) : undefined;
      const r = await (await c.engine()).reflect({ model });
      return { id: r.id, path: r.path, day: r.day, about: r.about, modelPart: r.modelPart };
    },
  },
  rebuild: {
    summary: 'rebuilds every vault-derived row from the files',
    usage: 'rebuild',
    options: {},
    run: async (_p, c) => (await c.engine()).rebuild(),
  },
  mcp: {
    summary: 'MCP server on stdio (memory_search, _expand, _save, _status, _forget) for agents outside VS Code',
    usage: 'mcp [--project ID] [--project-type T]',
    options: { project: { type: 'string' }, 'project-type': { type: 'string' } },
    silent: true,
    run: async (p, c) => {
      const { serveMcpStdio } = await import('./mcp/mcpServer');
      // Without --project: the project of the folder the agent runs in, as the hooks find it (the window's id for a
      // workspace the extension has seen, with memory.projectId applied; else the repository's derived id).
      const project = stringOpt(p.values.project) ?? defaultProjectOf(process.cwd(), new HookState(c.storeDir).knownWorkspaces());
      await serveMcpStdio({ engine: await c.engine(), project, projectType: stringOpt(p.values['project-type']), logger: c.logger, version: packageVersion() });
    },
  },
  bench: {
    summary: 'benchmarks (JSON), in a source checkout (dist/bench.js; not part of the installed CLI)',
    usage: 'bench [NAME …] [--data FILE] [--items N]',
    options: { data: { type: 'string' }, items: { type: 'string' }, quick: { type: 'boolean' } },
    standalone: true,
    run: async (p, c) => {
      const bench = loadBenchmarks();
      const args: Record<string, string | boolean> = {};
      for (const [k, v] of Object.entries(p.values)) if (typeof v === 'string' || typeof v === 'boolean') args[k] = v;
      return bench.runBenchmarks(p.positionals, args, (l) => c.io.err(`[bench] ${l}`));
    },
  },
};

/** The extension's version (dist/cli.js sits next to package.json's folder in the install); '0.0.0' elsewhere. */
function packageVersion(): string {
  try {
    const v = (JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version?: unknown }).version;
    return typeof v === 'string' ? v : '0.0.0';
  } catch {
    return '0.0.0';
  }
}

async function doctor(c: CommandContext): Promise<Record<string, unknown>> {
  const checks: { check: string; ok: boolean; detail?: string }[] = [];
  const add = (check: string, ok: boolean, detail?: string) => checks.push({ check, ok, ...(detail ? { detail } : {}) });
  const major = Number(process.versions.node.split('.')[0]);
  add('node_version', major >= 20, process.versions.node);
  const wasm = path.join(__dirname, 'sql-wasm.wasm');
  add('sql_wasm', existsSync(wasm), existsSync(wasm) ? undefined : 'sql-wasm.wasm missing next to cli.js');
  add('store_dir_exists', existsSync(c.storeDir));
  if (existsSync(c.storeDir)) {
    let writable = true;
    try { accessSync(c.storeDir, fsc.W_OK); } catch { writable = false; }
    add('store_dir_writable', writable);
    try {
      const engine = await c.engine();
      const st = engine.status();
      add('store_opens', true, `seq ${st.store.seq}`);
      add('journal_clean', st.openReport.tornBytes === 0, st.openReport.tornBytes ? `${st.openReport.tornBytes} torn bytes were cut` : undefined);
      add('snapshot_readable', st.openReport.snapshotMovedAside === null, st.openReport.snapshotMovedAside ? 'an unreadable snapshot was moved aside' : undefined);
    } catch (e) {
      add('store_opens', false, e instanceof MemoryError ? `${e.code}: ${e.message}` : 'error');
    }
  }
  add('vault_dir_exists', existsSync(c.vaultDir));
  // The poison gate's learned stage ships inside the bundle: off only if its weights are corrupt or of
  // another version (the rules still run; the detail says why).
  const g = gateModelStatus();
  add('gate_model', g.active, describeGate(g));
  return { ok: checks.every((x) => x.ok || x.check === 'store_dir_exists' || x.check === 'vault_dir_exists'), storeDir: c.storeDir, vaultDir: c.vaultDir, checks, gate: g };
}

/** The benchmarks bundle (dist/bench.js, built beside dist/cli.js in a checkout; never shipped). */
interface BenchmarksModule {
  runBenchmarks(names: string[], args: Record<string, string | boolean>, log: (line: string) => void): Promise<unknown>;
}
function loadBenchmarks(): BenchmarksModule {
  const file = path.join(__dirname, 'bench.js');
  if (!existsSync(file)) {
    throw new MemoryError('E_USAGE', 'benchmarks are not part of the installed CLI: run `npm run bench -- NAME` in a source checkout');
  }
  // A runtime path on purpose: the bundler must not pull the benchmarks (and lunr) into cli.js.
  return (module.require as (id: string) => BenchmarksModule)(file);
}

const HOOK_USAGE = 'hook [--agent copilot|claude-code] [--event NAME]';

function usage(): string {
  const lines = ['usage: vscode-memory <command> [options] [--store DIR] [--vault DIR] [--json] [--verbose]', '', 'commands:'];
  for (const cmd of Object.values(COMMANDS)) lines.push(`  ${cmd.usage.padEnd(44)} ${cmd.summary}`);
  lines.push(`  ${HOOK_USAGE.padEnd(44)} an agent hook: JSON on stdin, context (or nothing) on stdout, always exit 0`);
  return lines.join('\n');
}

function human(v: unknown): string {
  if (typeof v === 'string') return v;
  const o = v as Record<string, unknown>;
  if (o && typeof o.block === 'string') return o.block || `(empty recall block${o.reason ? `: ${o.reason}` : ''})`;
  if (o && Array.isArray(o.hits)) {
    return (o.hits as { id: string; score: number; trust: string; text: string }[])
      .map((h) => `${h.id}  ${h.score.toFixed(3)}  ${h.trust}\n  ${h.text}`).join('\n') || '(no hits)';
  }
  return JSON.stringify(v, null, 2);
}

/** Runs one CLI invocation; returns the exit code. */
export async function runCli(argv: string[], io: CliIO): Promise<number> {
  const json = argv.includes('--json');
  const verbose = argv.includes('--verbose');
  const args = argv.filter((a) => a !== '--verbose');
  const name = args[0];
  let engine: MemoryEngine | undefined;
  try {
    if (!name || name === '--help' || name === '-h' || name === 'help') {
      if (json) io.out(JSON.stringify({ commands: Object.keys(COMMANDS) }));
      else io.out(usage());
      return name ? 0 : 2;
    }
    const cmd = COMMANDS[name];
    if (!cmd) throw new MemoryError('E_USAGE', `unknown command "${name}" (try --help)`);
    const parsed = parseCommandArgs(args.slice(1), cmd.options);
    if (parsed.values.help) {
      io.out(`usage: vscode-memory ${cmd.usage}`);
      return 0;
    }
    const storeDir = path.resolve(stringOpt(parsed.values.store) ?? defaultStoreDir(io.env));
    const vaultDir = path.resolve(stringOpt(parsed.values.vault) ?? defaultVaultDir(storeDir));
    const logger = stderrLogger(io, verbose);
    const ctx: CommandContext = {
      json, io, storeDir, vaultDir, logger,
      engine: async () => (engine ??= await MemoryEngine.open({ storeDir, vaultDir, logger })),
    };
    const result = await cmd.run(parsed, ctx);
    if (!cmd.silent) io.out(json ? JSON.stringify(result) : human(result));
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

export { COMMON_OPTIONS, runHookCommand };

if (require.main === module && process.argv[2] === 'hook') {
  // An agent waits for the hook's exit: answer, then exit at once (open timers of the store don't hold it).
  let output = '';
  void runHookCommand(process.argv.slice(3), { stdin: process.stdin, out: (s) => { output += s + '\n'; }, env: process.env })
    .then((code) => (output ? process.stdout.write(output, () => process.exit(code)) : process.exit(code)));
} else if (require.main === module) {
  void runCli(process.argv.slice(2), {
    out: (s) => process.stdout.write(s + '\n'),
    err: (s) => process.stderr.write(s + '\n'),
    env: process.env,
  }).then((code) => { process.exitCode = code; });
}
