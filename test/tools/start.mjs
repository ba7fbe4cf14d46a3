// `npm start`: builds, writes a small demo vault (.scratch/demo), and opens VS Code with the
// extension under development on it — the desktop `code` if it is on PATH, otherwise code-server
// on 127.0.0.1 (port: $PORT, else 8080, else a free one) whose URL it prints. Ctrl-C stops
// everything it started (code-server's whole process group).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { ensureToolsOrExit, ROOT } from './installTools.mjs';
import { preflightOrExit } from './preflight.mjs';
import { freePort, startCodeServer, workbenchUrl } from './codeServer.mjs';
import { writeTeamRepo, writeUserSettings } from './runIntegration.mjs';

const DEMO = join(ROOT, '.scratch', 'demo');
const VAULT = join(DEMO, 'vault');
const WORKSPACE = join(DEMO, 'workspace');

function write(rel, text) {
  const p = join(DEMO, rel);
  mkdirSync(join(p, '..'), { recursive: true });
  if (!existsSync(p)) writeFileSync(p, text);
}

/** A small, realistic vault; existing files are left alone so edits survive a restart. */
export function writeDemoVault() {
  const today = new Date().toISOString().slice(0, 10);
  write('vault/longterm.md', `# Long-term

- I work mostly in TypeScript and Rust; answer with TypeScript unless I say otherwise.
- Prefer small, reviewed pull requests; never force-push to main.
- Time zone: Europe/Berlin.
`);
  write('vault/semantic/preferred-test-style.md', `---
kind: user
summary: Prefers mocha + node:assert/strict, no mocks of VS Code
tags: [testing, preferences]
---
Tests use mocha with \`node:assert/strict\`. Real files in temp folders, no mocks of \`vscode\`.
See also [[release-checklist]].
`);
  write('vault/semantic/sqlite-facts.md', `---
kind: domain
summary: sql.js 1.17 has FTS4 but not FTS5
tags: [sqlite]
---
sql.js 1.17 compiles FTS3/FTS4 with \`unicode61\`, JSON and window functions; FTS5 and RTREE are missing.
`);
  write('vault/procedural/release-checklist.md', `---
kind: feedback
summary: Release checklist — changelog, version bump, vsix smoke test
tags: [release]
---
1. Update CHANGELOG.md.
2. Bump the version in package.json.
3. \`npm test\`, then install the .vsix in a clean profile and run "Memory: Show Status".
`);
  write('vault/projects/demo/architecture.md', `---
kind: project
project: demo
summary: Demo project — a CLI that syncs bookmarks between browsers
tags: [architecture]
---
The demo project is a small CLI (Node 20) that syncs bookmarks between Firefox and Chromium profiles.
Decisions: store state in one JSON file; no background service. Related: [[sqlite-facts]].
`);
  write(`vault/logs/${today}.md`, `# ${today}

### user
How should I name the bookmark sync command?

### assistant
\`bookmarks sync\` reads well and leaves room for \`bookmarks export\` later.
`);
  write('workspace/README.md', '# Demo workspace\n\nOpen the Memory view in the activity bar to browse the demo vault.\n');
}

function portFree(port) {
  return new Promise((resolve) => {
    const srv = createServer().once('error', () => resolve(false)).listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

async function main() {
  await preflightOrExit({ start: true });
  execFileSync(process.execPath, [join(ROOT, 'build.mjs')], { cwd: ROOT, stdio: 'inherit' });
  writeDemoVault();
  console.log(`[start] demo vault: ${VAULT}`);
  // Team memory (issue #15): the demo workspace is a git repository whose project vault a teammate committed to.
  if (!existsSync(join(WORKSPACE, '.memory'))) {
    try {
      writeTeamRepo(WORKSPACE);
    } catch (e) {
      console.log(`[start] no demo project vault (git: ${e.code ?? e.status ?? 'failed'})`);
    }
  }

  // Memory's settings are personal (a workspace never steers memory, issue #12): the demo's vault and project
  // go into the demo profile's user settings, never into the workspace's .vscode/settings.json.
  const userData = join(DEMO, 'user-data');
  writeUserSettings(userData, { 'memory.vaultPath': VAULT, 'memory.projectId': 'demo' });

  if (spawnSync('code', ['--version'], { stdio: 'ignore' }).status === 0) {
    console.log('[start] opening VS Code with the extension under development');
    const child = spawn('code', ['--user-data-dir=' + userData, '--extensionDevelopmentPath=' + ROOT, WORKSPACE], { stdio: 'inherit' });
    child.on('exit', (c) => process.exit(c ?? 0));
    return;
  }

  ensureToolsOrExit();
  // An explicit PORT must be free (the preflight said so); else 8080, else any free port.
  const port = process.env.PORT ? Number(process.env.PORT) : (await portFree(8080)) ? 8080 : await freePort();
  const home = join(DEMO, 'home');
  const server = await startCodeServer({
    home, userDataDir: userData, extensionsDir: join(DEMO, 'extensions'), workspace: WORKSPACE, port,
    logFile: join(DEMO, 'code-server.log'),
  });
  const url = workbenchUrl(server.base, server.port, { folder: WORKSPACE, extensionDevelopmentPath: ROOT });
  console.log(`\n[start] VS Code (code-server) with Memory under development:\n\n  ${url}\n\n[start] log: ${join(DEMO, 'code-server.log')} — Ctrl-C stops it.`);
  const stop = async () => { await server.stop(); process.exit(0); };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  server.child.once('exit', (c) => { console.log(`[start] code-server exited (${c})`); process.exit(c ?? 1); });
}

await main();
