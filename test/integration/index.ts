// Entry point the workbench loads as `extensionTestsPath`: runs every compiled
// out/test/integration/**/*.test.js with mocha inside the extension host. The spec reporter
// writes through console.log, which the workbench forwards to the runner (codeAutomationLog).
import Mocha from 'mocha';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function findTests(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) findTests(p, out);
    else if (name.endsWith('.test.js')) out.push(p);
  }
  return out;
}

export async function run(): Promise<void> {
  // 60 s per test: the first command in a fresh extension host can wait on activation.
  // MEMORY_INTEGRATION_GREP=<pattern> runs only the matching tests (while iterating on one surface).
  const grep = process.env.MEMORY_INTEGRATION_GREP || undefined;
  const mocha = new Mocha({ ui: 'bdd', reporter: 'spec', color: false, timeout: 60_000, forbidOnly: true, grep });
  for (const file of findTests(__dirname)) mocha.addFile(file);
  // Plain require (not loadFilesAsync's import()): the extension host resolves 'vscode' for require.
  await new Promise<void>((resolve, reject) => {
    mocha.run((failures) => (failures > 0 ? reject(new Error(`${failures} integration test(s) failed`)) : resolve()));
  });
}
