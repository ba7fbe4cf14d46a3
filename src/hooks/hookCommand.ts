// `vscode-memory hook [--agent copilot|claude-code] [--event NAME] [--store DIR] [--vault DIR] [--socket PATH]`: the entry an
// agent's hooks file runs. It only reads stdin, asks the running extension over the local socket, and — when no
// extension answers — opens the store itself and runs the same handler (hookHandler.ts).
// Fail-soft by contract: whatever happens (malformed JSON, no transcript, a locked, newer or broken store, a
// timeout) it exits 0, prints nothing, and writes one log line of ids and codes to `<store>/hooks/hook.log`.
// Read events (SessionStart, UserPromptSubmit) print the answer and exit without closing the store: nothing was
// written (access counts aside), so there is nothing to compact, and the agent waits on the exit.
import { performance } from 'node:perf_hooks';
import * as path from 'node:path';
import { MemoryEngine } from '../engine/engine';
import { errorCode } from '../engine/errors';
import { nullLogger } from '../engine/host';
import { defaultStoreDir, defaultVaultDir } from '../engine/paths';
import { handleHook } from './hookHandler';
import { HOOK_AGENTS, HookInputError, MAX_HOOK_INPUT_BYTES, parseHookInput, type HookAgent } from './hookInput';
import { askExtension, hookSocketPath } from './hookSocket';
import { HookState } from './hookState';
import { attachProjectVault, locateProjectVault } from './projectVaultLocator';

export interface HookCommandIO {
  stdin: NodeJS.ReadableStream;
  out: (s: string) => void;
  env: NodeJS.ProcessEnv;
}

/** How long a read event may take before the agent gets no context (the agent's own timeout is longer). */
const READ_BUDGET_MS = 4_000;
/** Recording may take longer (the agent does not wait for an answer, only for the exit). */
const WRITE_BUDGET_MS = 25_000;
/** Time to wait for stdin to end (an agent writes it at once; a terminal never ends it). */
const STDIN_MS = 3_000;
/** The extension answers from memory; a busy one still answers well inside this. */
const SOCKET_MS = 2_500;

function readStdin(stdin: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => reject(new Error('E_HOOK_STDIN_TIMEOUT')), STDIN_MS);
    stdin.on('data', (c: Buffer | string) => {
      const b = typeof c === 'string' ? Buffer.from(c) : c;
      size += b.length;
      if (size > MAX_HOOK_INPUT_BYTES) { clearTimeout(timer); reject(new Error('E_HOOK_TOO_LARGE')); return; }
      chunks.push(b);
    });
    stdin.on('end', () => { clearTimeout(timer); resolve(Buffer.concat(chunks).toString('utf8')); });
    stdin.on('error', () => { clearTimeout(timer); reject(new Error('E_HOOK_STDIN')); });
  });
}

function flag(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(`--${name}`);
  if (i >= 0 && i + 1 < argv.length) return argv[i + 1];
  const eq = argv.find((a) => a.startsWith(`--${name}=`));
  return eq?.slice(name.length + 3);
}

function agentFlag(v: string | undefined): HookAgent | undefined {
  if (v === 'copilot') return 'copilot-vscode';
  return HOOK_AGENTS.includes(v as HookAgent) ? (v as HookAgent) : undefined;
}

/** Runs one hook; always resolves 0. `opts.raw`: stdin already read (dist/hook.js, after trying the socket). */
export async function runHookCommand(argv: string[], io: HookCommandIO, opts: { raw?: string; socketTried?: boolean } = {}): Promise<number> {
  const started = performance.now();
  const storeDir = path.resolve(flag(argv, 'store') ?? defaultStoreDir(io.env));
  const vaultDir = path.resolve(flag(argv, 'vault') ?? defaultVaultDir(storeDir));
  const state = new HookState(storeDir);
  const agent = agentFlag(flag(argv, 'agent'));
  const eventFlag = flag(argv, 'event');
  const ms = () => Math.round(performance.now() - started);
  let raw: string;
  try {
    raw = opts.raw ?? await readStdin(io.stdin);
  } catch (e) {
    state.log({ outcome: 'bad_input', code: (e as Error).message, ms: ms() });
    return 0;
  }
  let input;
  try {
    input = parseHookInput(raw, { event: eventFlag, agent });
  } catch (e) {
    state.log({ outcome: 'bad_input', code: e instanceof HookInputError ? e.code : 'E_HOOK_JSON', ms: ms() });
    return 0;
  }
  const read = input.event === 'SessionStart' || input.event === 'UserPromptSubmit';
  const budget = read ? READ_BUDGET_MS : WRITE_BUDGET_MS;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => { timer = setTimeout(() => resolve('timeout'), budget); });
  let engine: MemoryEngine | undefined;
  const work = (async () => {
    if (!opts.socketTried && io.env.VSCODE_MEMORY_HOOK_NO_SOCKET !== '1') {
      const answer = await askExtension(flag(argv, 'socket') ?? hookSocketPath(storeDir, io.env), { raw, event: eventFlag, agent }, SOCKET_MS);
      if (answer) return { output: answer.output, log: { event: input.event, agent: input.agent, path: 'extension' } };
    }
    engine = await MemoryEngine.open({ storeDir, vaultDir, logger: nullLogger, syncVault: false });
    // The project vault of the agent's cwd (a `.memory/` up to the git root; --project-vault / --no-project-vault).
    if (input.cwd && path.isAbsolute(input.cwd)) {
      const loc = locateProjectVault(input.cwd, { override: flag(argv, 'project-vault'), off: argv.includes('--no-project-vault'), env: io.env, known: state.knownWorkspaces() });
      await attachProjectVault(engine, loc, nullLogger);
    }
    const r = await handleHook(engine, input, { state });
    return { output: r.output, log: { ...r.log, path: 'process' } };
  })();
  try {
    const r = await Promise.race([work, timeout]);
    if (r === 'timeout') {
      state.log({ event: input.event, agent: input.agent, outcome: 'timeout', ms: ms() });
      return 0;
    }
    if (r.output) io.out(r.output);
    state.log({ ...r.log, ms: ms() });
    if (!read && engine) await engine.close();
    return 0;
  } catch (e) {
    state.log({ event: input.event, agent: input.agent, outcome: 'failed', code: errorCode(e, 'E_INTERNAL'), ms: ms() });
    return 0;
  } finally {
    clearTimeout(timer);
  }
}
