// Proves the packaged .vsix works as a user gets it: installs dist-vsix/vscode-memory.vsix into a
// fresh code-server extensions folder, opens the workbench WITHOUT the development path, runs
// "Memory: Show Status" from the command palette as a person would, and waits for its message.
// Also fails when the .vsix ships sources, tests, node_modules or source maps.
//   node test/tools/vsixCheck.mjs [--no-package]
import { mkdirSync, rmSync, writeFileSync, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureTools, ROOT } from './installTools.mjs';
import { codeServerCli, startCodeServer, tail, workbenchUrl } from './codeServer.mjs';
import { openWorkbench, writeUserSettings } from './runIntegration.mjs';
import { packageVsix, VSIX, vsixEntries, vsixProblems } from './packageVsix.mjs';

const SCRATCH = join(ROOT, '.scratch', 'vsix-check');
const EXTENSION_ID = 'memory-for-vscode.vscode-memory';
// 3 minutes: a workbench is up in ~10 s here; the rest is margin for a loaded CI machine.
const TIMEOUT_MS = Number(process.env.MEMORY_VSIX_TIMEOUT_MS || 3 * 60_000);

function findFiles(dir, test, out = []) {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) findFiles(p, test, out);
    else if (test(name)) out.push(p);
  }
  return out;
}

/**
 * Runs a command from the palette as a person would. The palette may open before the extension
 * host has registered our contributions, so it reopens until the command is listed.
 */
async function runFromPalette(page, title, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press('Escape');
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ timeout: 30_000 });
    await input.fill(`>${title}`);
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
    try {
      await row.waitFor({ timeout: 5_000 });
      await row.click();
      return attempt;
    } catch (e) {
      if (Date.now() > deadline) throw e;
    }
  }
}

async function main() {
  const started = Date.now();
  const secs = () => ((Date.now() - started) / 1000).toFixed(1);
  if (!process.argv.includes('--no-package') || !existsSync(VSIX)) packageVsix();
  const problems = vsixProblems(vsixEntries(VSIX));
  if (problems.length) throw new Error(`the .vsix ships the wrong files:\n  ${problems.join('\n  ')}`);
  ensureTools();

  rmSync(SCRATCH, { recursive: true, force: true });
  const dirs = { home: join(SCRATCH, 'home'), userData: join(SCRATCH, 'user-data'), extensions: join(SCRATCH, 'extensions'), workspace: join(SCRATCH, 'workspace') };
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
  writeFileSync(join(dirs.workspace, 'notes.md'), '# A workspace\n');
  writeUserSettings(dirs.userData, { 'memory.vaultPath': join(SCRATCH, 'vault') });

  const installed = await codeServerCli(dirs.home, ['--install-extension', VSIX, '--extensions-dir', dirs.extensions, '--user-data-dir', dirs.userData]);
  if (!/successfully installed/i.test(installed)) throw new Error(`install did not report success:\n${installed}`);
  const listed = await codeServerCli(dirs.home, ['--list-extensions', '--extensions-dir', dirs.extensions, '--user-data-dir', dirs.userData]);
  if (!listed.split('\n').includes(EXTENSION_ID)) throw new Error(`${EXTENSION_ID} not listed after install:\n${listed}`);
  console.log(`[vsix] installed ${EXTENSION_ID} after ${secs()} s`);

  const logFile = join(SCRATCH, 'code-server.log');
  let server; let browser; let page;
  try {
    server = await startCodeServer({ home: dirs.home, userDataDir: dirs.userData, extensionsDir: dirs.extensions, workspace: dirs.workspace, logFile });
    const url = workbenchUrl(server.base, server.port, { folder: dirs.workspace });
    ({ browser, page } = await openWorkbench(url, dirs.home, { onLog: () => {}, onExit: () => {} }));
    await page.locator('.monaco-workbench').waitFor({ timeout: TIMEOUT_MS });
    // The palette lists contributed commands from the installed manifest; running one activates us.
    await page.locator('.monaco-workbench .part.editor').waitFor({ timeout: TIMEOUT_MS });
    await runFromPalette(page, 'Memory: Show Status', TIMEOUT_MS);
    await page.getByText(/Memory is (on|off)/).first().waitFor({ timeout: TIMEOUT_MS });
    await page.screenshot({ path: join(SCRATCH, 'workbench.png') });
    console.log(`[vsix] "Memory: Show Status" answered in the installed extension after ${secs()} s`);

    // Belt and braces: the extension host log names our activation.
    const logs = findFiles(join(dirs.userData, 'logs'), (n) => /exthost/i.test(n) && n.endsWith('.log'));
    const activated = logs.some((f) => readFileSync(f, 'utf8').includes(EXTENSION_ID));
    console.log(`[vsix] extension host log ${activated ? 'mentions' : 'does not mention'} ${EXTENSION_ID} (${logs.length} log files)`);
  } catch (e) {
    await page?.screenshot({ path: join(SCRATCH, 'failure.png') }).catch(() => {});
    console.error(`${tail(logFile, 20)}\n(screenshot: .scratch/vsix-check/failure.png)`);
    throw e;
  } finally {
    await browser?.close().catch(() => {});
    await server?.stop();
  }
  console.log(`[vsix] ok in ${secs()} s`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  try { await main(); process.exit(0); } catch (e) { console.error(`[vsix] FAILED: ${e.message}`); process.exit(1); }
}
