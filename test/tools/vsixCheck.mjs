// Proves the packaged .vsix works as a user gets it: installs dist-vsix/vscode-memory.vsix into a
// fresh code-server extensions folder, opens the workbench WITHOUT the development path, runs
// "Memory: Show Status" from the command palette as a person would, and waits for its message.
// The tiny stand-in e5 model (test/fixtures/makeTinyE5.ts) sits in the extension's
// <globalStorage>/models and `memory.embedder.model` names it: the message must name the e5 embedder
// loaded by the WASM runtime the .vsix ships (not the hash fallback).
// Also fails when the .vsix ships sources, tests, node_modules or source maps.
//   node test/tools/vsixCheck.mjs [--no-package]
import { mkdirSync, rmSync, writeFileSync, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as esbuild from 'esbuild';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureToolsOrExit, ROOT } from './installTools.mjs';
import { preflightOrExit } from './preflight.mjs';
import { codeServerCli, startCodeServer, tail, workbenchUrl } from './codeServer.mjs';
import { openWorkbench, writeUserSettings } from './runIntegration.mjs';
import { packageVsix, VSIX, vsixEntries, vsixProblems } from './packageVsix.mjs';

const SCRATCH = join(ROOT, '.scratch', 'vsix-check');
const EXTENSION_ID = 'memory-for-vscode.vscode-memory';
const TINY_MODEL = 'test/tiny-e5';
const TINY_EMBEDDER = 'tiny-e5-q8-384';

/** Writes the tiny stand-in model under `modelsDir` (the fixture, bundled on the fly: no out/ needed). */
async function placeTinyModel(modelsDir) {
  const outfile = join(SCRATCH, 'makeTinyE5.cjs');
  await esbuild.build({ entryPoints: [join(ROOT, 'test', 'fixtures', 'makeTinyE5.ts')], outfile, bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'warning' });
  return createRequire(import.meta.url)(outfile).makeTinyE5(modelsDir, TINY_MODEL);
}
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
  await preflightOrExit();
  if (!process.argv.includes('--no-package') || !existsSync(VSIX)) packageVsix();
  const problems = vsixProblems(vsixEntries(VSIX));
  if (problems.length) throw new Error(`the .vsix ships the wrong files:\n  ${problems.join('\n  ')}`);
  ensureToolsOrExit();

  rmSync(SCRATCH, { recursive: true, force: true });
  const dirs = { home: join(SCRATCH, 'home'), userData: join(SCRATCH, 'user-data'), extensions: join(SCRATCH, 'extensions'), workspace: join(SCRATCH, 'workspace') };
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
  writeFileSync(join(dirs.workspace, 'notes.md'), '# A workspace\n');
  writeUserSettings(dirs.userData, { 'memory.vaultPath': join(SCRATCH, 'vault'), 'memory.embedder.model': TINY_MODEL });
  // code-server's globalStorage for the extension: <user-data>/User/globalStorage/<publisher.name>.
  await placeTinyModel(join(dirs.userData, 'User', 'globalStorage', EXTENSION_ID, 'models'));

  const installed = await codeServerCli(dirs.home, ['--install-extension', VSIX, '--extensions-dir', dirs.extensions, '--user-data-dir', dirs.userData]);
  if (!/successfully installed/i.test(installed)) throw new Error(`install did not report success:\n${installed}`);
  const listed = await codeServerCli(dirs.home, ['--list-extensions', '--extensions-dir', dirs.extensions, '--user-data-dir', dirs.userData]);
  if (!listed.split('\n').includes(EXTENSION_ID)) throw new Error(`${EXTENSION_ID} not listed after install:\n${listed}`);
  console.log(`[vsix] installed ${EXTENSION_ID} after ${secs()} s`);

  const logFile = join(SCRATCH, 'code-server.log');
  let server; let browser; let page;
  try {
    server = await startCodeServer({
      home: dirs.home, userDataDir: dirs.userData, extensionsDir: dirs.extensions, workspace: dirs.workspace, logFile,
      port: process.env.MEMORY_CODE_SERVER_PORT ? Number(process.env.MEMORY_CODE_SERVER_PORT) : undefined,
    });
    const url = workbenchUrl(server.base, server.port, { folder: dirs.workspace });
    ({ browser, page } = await openWorkbench(url, dirs.home, { onLog: () => {}, onExit: () => {} }));
    await page.locator('.monaco-workbench').waitFor({ timeout: TIMEOUT_MS });
    // The palette lists contributed commands from the installed manifest; running one activates us.
    await page.locator('.monaco-workbench .part.editor').waitFor({ timeout: TIMEOUT_MS });
    // The answer is a toast, and a toast can be gone or covered before it is seen (once: the extension logged
    // `status.shown` and no "Memory is …" toast ever became visible): ask again until one is seen, within the deadline.
    const status = page.getByText(/Memory is (on|off)/).first();
    await runFromPalette(page, 'Memory: Show Status', TIMEOUT_MS);
    for (;;) {
      try {
        await status.waitFor({ timeout: 20_000 });
        break;
      } catch (e) {
        if (Date.now() - started > TIMEOUT_MS) throw new Error(`Show Status never answered: ${e.message}`);
        await runFromPalette(page, 'Memory: Show Status', TIMEOUT_MS);
      }
    }
    console.log(`[vsix] "Memory: Show Status" answered in the installed extension after ${secs()} s`);
    // The embedder loads in the background after the engine opens: ask again until it is named
    // (each answer is a fresh notification; the deadline is the only bound).
    const e5 = page.getByText(new RegExp(`embedder ${TINY_EMBEDDER} \\(local model loaded\\)`)).first();
    for (;;) {
      try {
        await e5.waitFor({ timeout: 5_000 });
        break;
      } catch (e) {
        if (Date.now() - started > TIMEOUT_MS) throw new Error(`Show Status never named the e5 embedder ${TINY_EMBEDDER}: ${e.message}`);
        await runFromPalette(page, 'Memory: Show Status', TIMEOUT_MS);
      }
    }
    await page.screenshot({ path: join(SCRATCH, 'workbench.png') });
    console.log(`[vsix] the installed extension loaded the e5 model through its WASM runtime (${TINY_EMBEDDER}, model-loaded) after ${secs()} s`);

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
