// Runs test/integration/**/*.test.ts inside a real VS Code extension host: code-server (VS Code
// 1.139) serves the workbench, headless Chromium opens it with the smoke-test payload, and the
// compiled test index runs mocha there. Exits with mocha's exit code; a hard timeout is a failure.
// Everything it starts (code-server's process group, Chromium) is stopped on every path.
//   node test/tools/runIntegration.mjs [--no-build]
// Env: MEMORY_INTEGRATION_GREP=<pattern> (only matching tests), MEMORY_CODE_SERVER_PORT=<port> (else a free one),
// MEMORY_CHROMIUM=<path> (a system browser instead of the one from npm), MEMORY_TOOLS_DIR=<folder>.
// A test can ask for a screenshot by logging `[screenshot] <name>` (see test/integration/screenshot.ts);
// it lands in .scratch/integration/screenshots/<name>.png.
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, rmSync, writeFileSync, renameSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { format } from 'node:util';
import { chromium } from 'playwright-core';
import { ensureToolsOrExit, ROOT } from './installTools.mjs';
import { ensureBrowser } from './browser.mjs';
import { preflightOrExit } from './preflight.mjs';
import { scratchEnv, startCodeServer, tail, workbenchUrl } from './codeServer.mjs';

// 8 minutes: a run takes ~25 s here (TESTING.md); the margin covers a slow, shared CI machine.
const TIMEOUT_MS = Number(process.env.MEMORY_INTEGRATION_TIMEOUT_MS || 8 * 60_000);
const SCRATCH = join(ROOT, '.scratch', 'integration');
// Harmless workbench chatter on an offline machine (gallery look-ups, sign-in probes): kept in
// workbench.log, not printed.
const QUIET = /ENOTFOUND|No signed-in session|AccountPolicyGate|open-vsx\.org|marketplace|\[AgentHost\]/;

/** Settings of the test instance: a scratch vault, no telemetry, nothing opened at start-up. */
export function writeUserSettings(userDataDir, extra = {}) {
  mkdirSync(join(userDataDir, 'User'), { recursive: true });
  writeFileSync(join(userDataDir, 'User', 'settings.json'), JSON.stringify({
    'telemetry.telemetryLevel': 'off',
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'update.mode': 'none',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'security.workspace.trust.enabled': false,
    ...extra,
  }, null, 2));
}

/** Opens the workbench in headless Chromium with the automation hooks exposed before navigation. */
export async function openWorkbench(url, home, { onLog, onExit }) {
  const { executablePath, args, env } = await ensureBrowser();
  const browser = await chromium.launch({ executablePath, args, headless: true, env: { ...scratchEnv(home), ...env } });
  const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
  await page.exposeFunction('codeAutomationLog', (type, args) => onLog(type, args));
  await page.exposeFunction('codeAutomationExit', (code) => onExit(code));
  await page.goto(url);
  return { browser, page };
}

async function main() {
  const started = Date.now();
  await preflightOrExit();
  if (!process.argv.includes('--no-build')) execFileSync(process.execPath, [join(ROOT, 'build.mjs')], { cwd: ROOT, stdio: 'inherit' });
  ensureToolsOrExit();

  rmSync(SCRATCH, { recursive: true, force: true });
  const dirs = {
    home: join(SCRATCH, 'home'), userData: join(SCRATCH, 'user-data'), extensions: join(SCRATCH, 'extensions'),
    workspace: join(SCRATCH, 'workspace'), vault: join(SCRATCH, 'vault'), shots: join(SCRATCH, 'screenshots'),
  };
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
  writeFileSync(join(dirs.workspace, 'README.md'), '# Integration test workspace\n');
  writeUserSettings(dirs.userData, { 'memory.vaultPath': dirs.vault });
  const logFile = join(SCRATCH, 'code-server.log');
  const workbenchLog = join(SCRATCH, 'workbench.log');

  let server; let browser; let page;
  let finish;
  const done = new Promise((resolve) => { finish = resolve; });
  const screenshots = [];
  const stopAll = async () => {
    await browser?.close().catch(() => {});
    await server?.stop();
  };
  for (const sig of ['SIGINT', 'SIGTERM']) process.once(sig, () => { void stopAll().then(() => process.exit(130)); });

  let code = 1;
  try {
    server = await startCodeServer({
      home: dirs.home, userDataDir: dirs.userData, extensionsDir: dirs.extensions, workspace: dirs.workspace, logFile,
      port: process.env.MEMORY_CODE_SERVER_PORT ? Number(process.env.MEMORY_CODE_SERVER_PORT) : undefined,
      env: { MEMORY_TEST_SCREENSHOT_DIR: dirs.shots, MEMORY_TEST_VAULT: dirs.vault },
    });
    console.log(`[integration] code-server on ${server.base} after ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const url = workbenchUrl(server.base, server.port, {
      folder: dirs.workspace,
      extensionDevelopmentPath: ROOT,
      extensionTestsPath: join(ROOT, 'out', 'test', 'integration', 'index.js'),
    });
    const onLog = (type, args) => {
      const text = format(...(Array.isArray(args) ? args : [args]));
      const shot = /^\[screenshot\] ([\w.-]+)$/.exec(text.trim());
      if (shot && page) {
        // Write under a temp name and rename, so a test waiting for the file never reads half a PNG.
        const file = join(dirs.shots, `${shot[1]}.png`);
        screenshots.push(page.screenshot({ path: `${file}.tmp.png` }).then(() => renameSync(`${file}.tmp.png`, file))
          .catch((e) => console.error(`[integration] screenshot ${shot[1]} failed: ${e.message}`)));
        return;
      }
      appendFileSync(workbenchLog, `${type} ${text}\n`);
      if (!QUIET.test(text)) (type === 'error' ? console.error : console.log)(text);
    };
    ({ browser, page } = await openWorkbench(url, dirs.home, { onLog, onExit: (c) => finish(Number(c)) }));
    const timer = setTimeout(() => finish('timeout'), TIMEOUT_MS);
    const crashed = new Promise((r) => server.child.once('exit', () => r('code-server exited')));
    const result = await Promise.race([done, crashed]);
    clearTimeout(timer);
    if (typeof result === 'number') code = result;
    else console.error(`[integration] FAILED: ${result === 'timeout' ? `no result within ${TIMEOUT_MS / 1000} s` : result}`);
    await Promise.all(screenshots);
    await page.screenshot({ path: join(SCRATCH, 'workbench.png') }).catch(() => {});
  } catch (e) {
    console.error(`[integration] FAILED: ${e.stack ?? e}`);
    console.error(tail(logFile));
  } finally {
    await stopAll();
  }
  console.log(`[integration] exit ${code} in ${((Date.now() - started) / 1000).toFixed(1)} s (screenshot: .scratch/integration/workbench.png)`);
  process.exit(code);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await main();
