// dist/hook.js — what "Memory: Connect Agents…" writes into an agent's hooks file (through the launcher). Kept
// tiny on purpose: it reads stdin and asks the running extension over the local socket (hookSocket.ts), so a
// hook costs a Node start and one round trip while VS Code is open. Only when no extension answers does it load
// the engine (dist/hookCold.js, required at run time so this bundle stays small) and open the store itself.
import * as path from 'node:path';
import { defaultStoreDir } from '../engine/paths';
import { askExtension, hookSocketPath } from './hookSocket';
import type { HookCommandIO } from './hookCommand';

const STDIN_MS = 3_000;
const SOCKET_MS = 2_500;
const MAX_INPUT = 1 << 20;

function flag(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < argv.length ? argv[i + 1] : undefined;
}

function readStdin(): Promise<string | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => resolve(undefined), STDIN_MS);
    process.stdin.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_INPUT) { clearTimeout(timer); resolve(undefined); } else chunks.push(c);
    });
    process.stdin.on('end', () => { clearTimeout(timer); resolve(Buffer.concat(chunks).toString('utf8')); });
    process.stdin.on('error', () => { clearTimeout(timer); resolve(undefined); });
  });
}

function exitAfter(output: string, code = 0): void {
  if (output) process.stdout.write(output, () => process.exit(code));
  else process.exit(code);
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const raw = await readStdin();
  if (raw !== undefined && process.env.VSCODE_MEMORY_HOOK_NO_SOCKET !== '1') {
    const storeDir = path.resolve(flag(argv, 'store') ?? defaultStoreDir(process.env));
    const answer = await askExtension(flag(argv, 'socket') ?? hookSocketPath(storeDir), { raw, event: flag(argv, 'event'), agent: flag(argv, 'agent') }, SOCKET_MS);
    if (answer) { exitAfter(answer.output ? answer.output + '\n' : ''); return; }
  }
  // The cold path: the engine in this process (it logs; a bad or missing stdin is logged there too).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const cli = require(path.join(__dirname, 'hookCold.js')) as { runHookCommand: (argv: string[], io: HookCommandIO, opts?: { raw?: string; socketTried?: boolean }) => Promise<number> };
  let output = '';
  const code = await cli.runHookCommand(argv, { stdin: process.stdin, out: (s) => { output += s + '\n'; }, env: process.env }, { raw: raw ?? '', socketTried: true });
  exitAfter(output, code);
}

void main().catch(() => process.exit(0));
