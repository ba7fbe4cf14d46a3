// The built dashboard bundle (dist/webview/main.js) in headless Chromium, inside the host's real HTML
// shell and CSP (dashboardHtml), served from 127.0.0.1. A nonce'd stub stands in for acquireVsCodeApi:
// it records what the webview posts and answers its requests from fixtures, as the host would.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { DashboardApi } from '../../../src/protocol/dashboard';
import { dashboardHtml, makeNonce } from '../../../src/vscode/dashboard/dashboardHtml';

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');
const DIST = path.join(ROOT, 'dist', 'webview');

/**
 * The test browser (Chromium from npm, or MEMORY_CHROMIUM) as test/tools/browser.mjs resolves it —
 * asked through a child process because that module is ESM and these tests are CommonJS.
 */
function testBrowser(): { executablePath: string; args: string[]; env: Record<string, string> } {
  const out = execFileSync(process.execPath, [path.join(ROOT, 'test', 'tools', 'browser.mjs'), '--json'], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop() as string);
}

const XSS = '<img src=x onerror="window.__xss=1">';

const FIXTURES: Partial<{ [M in keyof DashboardApi]: DashboardApi[M][1] }> = {
  getOverview: {
    counts: { working: 2, episodic: 7, facts: 5, invalidatedFacts: 1, vaultFiles: 3, archived: 0, readyToPromote: null, readyToDemote: null, quarantined: 4, secretHidden: 0 },
    salience: { min: 0.1, avg: 0.5, max: 0.9, basis: 'salience' },
    histogram: Array.from({ length: 10 }, (_, i) => ({ from: i / 10, to: (i + 1) / 10, count: i % 3 })),
    topTags: [{ tag: 'editor', count: 3 }],
    episodicBySource: [{ source: 'derivation', count: 7 }],
    newestEpisodic: [{ id: 'fa:1', kind: 'fact', title: XSS, created: Date.parse('2026-11-02T09:00:00Z'), salience: 0.5, importance: 0.5, invalidated: false, tags: [], source: 'derivation' }],
    consolidationNote: 'Consolidation is not built yet.',
    briefing: { id: 'vt:reflections/2026-11-02.md', day: '2026-11-02', text: `# Morning briefing 2026-11-02\n\n## 2026-11-01\n- 2 turn(s) ${XSS}` },
  },
  getEngine: {
    enabled: true, embedder: 'hash-256', embedderModel: 'off', embedderReason: 'configured', summariesWithVector: '1 of 1', factsWithVector: '4 of 5',
    vectorLastRun: null, vectorPartitions: 1, rawRecord: true, captureToolResults: false, captureThinking: false, includeSecrets: false,
    recallBudgetChars: 2400, health: 'ok', skips: { length_floor: 3, echo: 1 },
    footprint: { memoryBytes: 17_000_000, databaseBytes: 16_777_216, keywordIndexBytes: 150_000, vectorIndexBytes: 40_000, cacheBytes: 32_000, diskBytes: 90_000, warnBytes: 268435456, critBytes: 536870912 },
  },
  getAgents: [
    { name: 'Copilot (VS Code)', kind: 'hooks', connected: true, lastRecordedAt: Date.parse('2026-11-02T08:30:00Z'), turns: 12 },
    { name: 'Copilot CLI', kind: 'hooks', connected: true, lastRecordedAt: null, turns: 0 },
    { name: 'Claude Code', kind: 'hooks', connected: false, lastRecordedAt: null, turns: 0 },
    { name: `Claude Code MCP ${XSS}`, kind: 'mcp', connected: true, lastRecordedAt: null, turns: 0 },
  ],
  getProjectVault: {
    state: 'attached', sentence: 'project vault .memory/: 3 notes', folder: '.memory', notes: 3, owner: 1, peer: 1, flagged: 1,
    agentFiles: ['AGENTS.md'], proposeNotes: false, flaggedNotes: [{ relPath: `team/${XSS}.md`, verdict: 'reject', detector: 'rules' }],
  },
  getWorking: { rows: [{ id: 'wk:1', kind: 'working', title: 'scratch block', created: 0, salience: null, importance: null, invalidated: false, tags: [], source: null }], offset: 0, total: 1, pageSize: 50 },
  getQuarantines: [],
  getReview: [
    { id: 'fa:near', reason: 'near-threshold', title: 'Node version: 22 LTS', detail: 'near demotion (0.07; archived below 0.05)' },
    { id: 'vt:semantic/odd.md', reason: 'untrusted-note', title: 'An odd note', detail: 'flagged untrusted' },
  ],
  reviewAction: { id: 'fa:near', action: 'keep', done: true, message: 'Kept fa:near: pinned, its decay reset; it left the queue.' },
};

/** The page the stub and bundle run in: the host's shell plus the stub and a nonce-less inline script. */
function harness(base: string, nonce: string): string {
  const shell = dashboardHtml({ cspSource: base, scriptUri: `${base}/main.js`, styleUri: `${base}/main.css`, nonce });
  // JSON inside a script: `<` escaped so the fixture's `<img …>` cannot close the script element.
  const fixtures = JSON.stringify(FIXTURES).replace(/</g, '\\u003c');
  const stub = `<script nonce="${nonce}">
window.__posted = [];
window.__violations = [];
document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective));
const fixtures = ${fixtures};
const send = (m) => window.postMessage(m, '*');
window.acquireVsCodeApi = () => ({
  getState: () => undefined, setState: () => {},
  postMessage: (m) => {
    window.__posted.push(m);
    if (m.type === 'ready') send({ type: 'init', version: 1 });
    else if (m.type === 'request') {
      const r = fixtures[m.method];
      send(r === undefined
        ? { type: 'response', id: m.id, method: m.method, ok: false, error: { code: 'E_NOT_FOUND', message: 'no fixture' } }
        : { type: 'response', id: m.id, method: m.method, ok: true, result: r });
    }
  },
});
</script>
<script>window.__evil = 1;</script>
`;
  return shell.replace('<div id="root"', `${stub}<div id="root"`);
}

describe('The dashboard webview in headless Chromium', function () {
  this.timeout(60_000);
  let server: Server;
  let browser: Browser;
  let page: Page;
  let base: string;

  before(async function () {
    // The bundle is built by `npm test` before the unit tests: missing means a broken build, not a skip.
    assert.ok(existsSync(path.join(DIST, 'main.js')), 'dist/webview/main.js is missing: run `node build.mjs` first');
    const { executablePath, args, env } = testBrowser();
    const nonce = makeNonce();
    server = createServer((req, res) => {
      const url = req.url ?? '/';
      if (url === '/' || url === '/index.html') { res.writeHead(200, { 'content-type': 'text/html' }); res.end(harness(base, nonce)); return; }
      const file = path.join(DIST, path.basename(url));
      if (!['/main.js', '/main.css'].includes(url) || !existsSync(file)) { res.writeHead(404); res.end(); return; }
      res.writeHead(200, { 'content-type': url.endsWith('.js') ? 'text/javascript' : 'text/css' });
      res.end(readFileSync(file));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath, args, headless: true, env: { ...process.env, ...env } as Record<string, string> });
  });

  beforeEach(async () => {
    page = await browser.newPage();
    await page.goto(`${base}/`);
    await page.locator('#count-episodic .value').waitFor();
  });
  afterEach(async () => { await page?.close(); });
  after(async () => {
    await browser?.close();
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  });

  it('posts ready before anything else and renders the overview from the host\'s answer', async () => {
    const posted = await page.evaluate(() => (window as unknown as { __posted: { type: string; method?: string }[] }).__posted);
    assert.equal(posted[0]!.type, 'ready');
    assert.deepEqual(posted.filter((m) => m.type === 'request').map((m) => m.method).sort(), ['getAgents', 'getEngine', 'getOverview', 'getProjectVault']);
    assert.ok(posted.some((m) => m.type === 'rendered'));
    assert.equal(await page.textContent('#count-episodic .value'), '7');
    assert.equal(await page.textContent('#count-quarantined .value'), '4');
    assert.equal(await page.textContent('#count-promote .value'), '0');
    assert.match((await page.textContent('#consolidation-note'))!, /not built yet/);
    assert.match((await page.textContent('#engine-card'))!, /Facts with a vector4 of 5/);
    assert.match((await page.textContent('#briefing-card'))!, /Morning briefing — 2026-11-02# Morning briefing 2026-11-02\n\n## 2026-11-01\n- 2 turn\(s\) <img/);
    assert.match((await page.textContent('#engine-card'))!, /Save filter skipped4 messages \(length_floor 3, echo 1\)/);
    assert.match((await page.textContent('#engine-card'))!, /Memory in RAM16\.2 MB/);
    assert.equal(await page.locator('svg.histogram rect.bar').count(), 10);
    // Agents: the connected ones only, with their last recorded turn; a name is text, never markup.
    const agents = await page.locator('#agents-list li').allTextContents();
    assert.equal(agents.length, 3);
    assert.match(agents[0]!, /^Copilot \(VS Code\) — 12 turns recorded, last /);
    assert.equal(agents[1], 'Copilot CLI — no turn recorded yet');
    assert.equal(agents[2], `Claude Code MCP ${XSS} — memory tools (MCP)`);
    // The project vault (issue #15): counts and flagged paths, a path is text, never markup.
    assert.match((await page.textContent('#project-vault'))!, /From teammates \(peer\)1Flagged \(never recalled\)1Agent filesAGENTS\.md/);
    assert.deepEqual(await page.locator('#project-vault-flagged li').allTextContents(), [`⚠ team/${XSS}.md — reject (rules)`]);
    assert.equal(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss), undefined);
  });

  it('switches tabs with the arrow keys, Home and End (roving tabindex)', async () => {
    await page.focus('#tab-overview');
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.getAttribute('#tab-working', 'aria-selected'), 'true');
    assert.equal(await page.getAttribute('#tab-working', 'tabindex'), '0');
    assert.equal(await page.getAttribute('#tab-overview', 'tabindex'), '-1');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'tab-working');
    await page.locator('#panel-working td', { hasText: 'scratch block' }).waitFor();
    assert.equal(await page.isHidden('#panel-overview'), true);
    await page.keyboard.press('End');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'tab-quarantine');
    await page.locator('#panel-quarantine', { hasText: 'No quarantines.' }).waitFor();
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'tab-overview', 'wraps around');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('Home');
    assert.equal(await page.getAttribute('#tab-overview', 'aria-selected'), 'true');
  });

  it('runs review actions from the keyboard as typed requests and shows the host\'s answer', async () => {
    await page.focus('#tab-overview');
    await page.keyboard.press('End');
    await page.keyboard.press('ArrowLeft');
    await page.locator('#panel-review td', { hasText: 'Node version: 22 LTS' }).waitFor();
    // Every entry has Keep, Edit, Forget…; Promote now only where it is not a note already.
    assert.equal(await page.locator('#panel-review button.review-keep').count(), 2);
    assert.equal(await page.locator('#panel-review button.review-promote').count(), 1);
    assert.equal(await page.getAttribute('#panel-review button.review-forget >> nth=0', 'aria-label'), 'Forget… fa:near');
    await page.focus('#panel-review button.review-keep >> nth=0');
    await page.keyboard.press('Enter');
    await page.locator('#review-status', { hasText: 'Kept fa:near' }).waitFor();
    const sent = await page.evaluate(() => (window as unknown as { __posted: { type: string; method?: string; params?: unknown }[] }).__posted
      .filter((m) => m.method === 'reviewAction').map((m) => m.params));
    assert.deepEqual(sent, [{ id: 'fa:near', action: 'keep' }]);
    await page.focus('#panel-review button.review-promote');
    await page.keyboard.press(' ');
    await page.waitForFunction(() => (window as unknown as { __posted: { method?: string }[] }).__posted.filter((m) => m.method === 'reviewAction').length === 2);
    const last = await page.evaluate(() => (window as unknown as { __posted: { method?: string; params?: unknown }[] }).__posted.filter((m) => m.method === 'reviewAction').at(-1)!.params);
    assert.deepEqual(last, { id: 'fa:near', action: 'promote' });
  });

  it('shows an injected <img onerror> title as literal text and never runs it', async () => {
    const cell = page.locator('#panel-overview td', { hasText: 'onerror' });
    await cell.waitFor();
    assert.equal(await cell.textContent(), XSS);
    assert.equal(await page.locator('img').count(), 0);
    assert.equal(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss), undefined);
  });

  it('honours the CSP: an inline script without the nonce does not run', async () => {
    assert.equal(await page.evaluate(() => (window as unknown as { __evil?: number }).__evil), undefined);
    const violations = await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations);
    assert.ok(violations.some((v) => v.startsWith('script-src')), `violations: ${violations.join(', ')}`);
    // The nonce'd bundle and stylesheet did load: the page is styled and rendered.
    assert.notEqual(await page.evaluate(() => getComputedStyle(document.querySelector('.counter')!).display), 'inline');
  });
});
