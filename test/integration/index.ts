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
  // MEMORY_INTEGRATION_GREP=<pattern> (or the runner's --grep, passed as MEMORY_TEST_GREP) runs only the matching tests.
  const grep = process.env.MEMORY_INTEGRATION_GREP || process.env.MEMORY_TEST_GREP || undefined;
  const mocha = new Mocha({ ui: 'bdd', reporter: 'spec', color: false, timeout: 60_000, forbidOnly: true });
  if (grep) mocha.grep(new RegExp(grep));
  // Restricted Mode files run only in the runner's --restricted pass (workspace untrusted), and only they do.
  const restricted = process.env.MEMORY_TEST_RESTRICTED === '1';
  for (const file of findTests(__dirname)) if (file.endsWith('.restricted.test.js') === restricted) mocha.addFile(file);
  // Plain require (not loadFilesAsync's import()): the extension host resolves 'vscode' for require.
  await new Promise<void>((resolve, reject) => {
    mocha.run((failures) => (failures > 0 ? reject(new Error(`${failures} integration test(s) failed`)) : resolve()));
  });
}
