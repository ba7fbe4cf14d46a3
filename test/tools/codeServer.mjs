// Starts and stops code-server (VS Code 1.139 server + workbench) for integration tests, the
// .vsix check and `npm start`. It runs under Node 24 in its own process group, because it forks
// helpers that outlive SIGTERM; stopping kills the whole group. HOME/TMPDIR/XDG_* point at a
// scratch folder so nothing leaks into the user's home. The set-up is described in the
// "Develop" section of README.md.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdirSync, openSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { codeServerEntry, node24 } from './installTools.mjs';

/** Environment that keeps code-server's and Chromium's writes inside `home`. */
export function scratchEnv(home) {
  for (const d of ['tmp', '.config', '.local/share', '.cache']) mkdirSync(join(home, d), { recursive: true });
  return {
    ...process.env,
    HOME: home,
    TMPDIR: join(home, 'tmp'),
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local/share'),
    XDG_CACHE_HOME: join(home, '.cache'),
  };
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Kills a detached child's whole process group: SIGTERM, then SIGKILL after `graceMs`. */
export async function killGroup(child, graceMs = 3000) {
  if (!child?.pid || child.exitCode !== null || child.signalCode !== null) {
    try { if (child?.pid) process.kill(-child.pid, 'SIGKILL'); } catch { /* group already gone */ }
    return;
  }
  const exited = new Promise((r) => child.once('exit', r));
  try { process.kill(-child.pid, 'SIGTERM'); } catch { return; }
  const timer = new Promise((r) => setTimeout(r, graceMs).unref());
  await Promise.race([exited, timer]);
  // Helpers (file watcher, pty host) may survive the leader: always sweep the group.
  try { process.kill(-child.pid, 'SIGKILL'); } catch { /* group already gone */ }
}

const running = new Set();
function killAllSync() {
  for (const c of running) { try { process.kill(-c.pid, 'SIGKILL'); } catch { /* gone */ } }
}
process.once('exit', killAllSync);

async function waitForHttp(url, child, logFile, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`code-server exited early (${child.exitCode ?? child.signalCode}); log:\n${tail(logFile)}`);
    }
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (res.status < 500) return;
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`code-server did not answer ${url} within ${timeoutMs} ms; log:\n${tail(logFile)}`);
}

export function tail(file, lines = 40) {
  if (!file || !existsSync(file)) return '';
  return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
}

/**
 * Starts code-server and resolves once it answers HTTP.
 * @param {{ home: string, userDataDir: string, extensionsDir: string, workspace?: string,
 *   port?: number, host?: string, logFile: string, env?: Record<string,string>, extraArgs?: string[] }} o
 * @returns {Promise<{ port: number, base: string, child: import('node:child_process').ChildProcess, stop: () => Promise<void> }>}
 */
export async function startCodeServer(o) {
  const port = o.port ?? await freePort();
  const host = o.host ?? '127.0.0.1';
  mkdirSync(o.userDataDir, { recursive: true });
  mkdirSync(o.extensionsDir, { recursive: true });
  const args = [
    codeServerEntry, '--auth', 'none', '--bind-addr', `${host}:${port}`,
    '--user-data-dir', o.userDataDir, '--extensions-dir', o.extensionsDir,
    '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust',
    '--disable-getting-started-override', '--ignore-last-opened',
    '--vscode-option', 'enable-smoke-test-driver',
    ...(o.extraArgs ?? []),
    ...(o.workspace ? [o.workspace] : []),
  ];
  const out = openSync(o.logFile, 'a');
  const child = spawn(node24, args, {
    detached: true, stdio: ['ignore', out, out], env: { ...scratchEnv(o.home), ...(o.env ?? {}) },
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  const base = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
  try {
    await waitForHttp(`${base}/healthz`, child, o.logFile, 90_000);
  } catch (e) {
    await killGroup(child);
    throw e;
  }
  return { port, base, child, stop: () => killGroup(child) };
}

/** Runs code-server's CLI once (e.g. --install-extension) and resolves with its output. */
export function codeServerCli(home, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(node24, [codeServerEntry, ...args], { env: scratchEnv(home), stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (d) => { text += d; });
    child.stderr.on('data', (d) => { text += d; });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`code-server ${args.join(' ')} exited ${code}:\n${text}`))));
  });
}

/** The workbench URL with a smoke-test payload (extension under development / tests). */
export function workbenchUrl(base, port, { folder, extensionDevelopmentPath, extensionTestsPath }) {
  const payload = [];
  if (extensionDevelopmentPath) payload.push(['extensionDevelopmentPath', `vscode-remote://127.0.0.1:${port}${extensionDevelopmentPath}`]);
  if (extensionTestsPath) payload.push(['extensionTestsPath', `vscode-remote://127.0.0.1:${port}${extensionTestsPath}`]);
  let url = `${base}/?folder=${encodeURIComponent(folder).replace(/%2F/g, '/')}`;
  if (payload.length) url += `&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  return url;
}
