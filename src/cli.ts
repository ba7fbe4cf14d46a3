// `vscode-memory`: the engine without VS Code (SPEC R-CLI-1), for scripts, other agents' hooks,
// benchmarks and support. It opens the same store as the extension, under the same lock and journal.
// This is the entry (bundled as dist/cli.js, the .vsix's `bin`): the commands live one per file under
// cli/commands/, the main loop in cli/main.ts.
import { COMMON_OPTIONS } from './cliArgs';
import type { CliIO } from './cli/command';
import { runCliWith } from './cli/main';
import { runHookCommand } from './hooks/hookCommand';

export type { CliIO } from './cli/command';

/** Runs one CLI invocation; returns the exit code. */
export function runCli(argv: string[], io: CliIO): Promise<number> {
  // A runtime `require` on purpose: the bundler must not pull the benchmarks (and lunr) into cli.js.
  return runCliWith(argv, io, { binDir: __dirname, loadModule: (file) => (module.require as (id: string) => unknown)(file) });
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
