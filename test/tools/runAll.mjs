// `npm test`: preflight → build → typecheck → lint → unit tests → integration tests (real VS Code) → .vsix check.
// Streams every step's output, times each step, and ends with one line `N passed, N failed[, N skipped]`.
// Fails when any step fails, when a test suite ran no tests, or when nothing ran at all.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './installTools.mjs';
import { mochaCounts, mochaFailures } from './mochaOutput.mjs';

const node = process.execPath;
const bin = (pkg, file) => join(ROOT, 'node_modules', pkg, file);

/**
 * Runs a step: `{ done, child }`, `done` resolving to its exit code and output. `quiet` keeps the output in `text`
 * instead of streaming it (a step running in the background).
 */
function start(cmd, args, { quiet = false } = {}) {
  const child = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0' } });
  const done = new Promise((resolve) => {
    let text = '';
    child.stdout.on('data', (d) => { text += d; if (!quiet) process.stdout.write(d); });
    child.stderr.on('data', (d) => { text += d; if (!quiet) process.stderr.write(d); });
    child.on('error', (e) => { text += String(e); resolve({ code: 1, text }); });
    child.on('exit', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), text }));
  });
  return { done, child };
}

const steps = [
  // First and fast: what the real-VS-Code tier needs (tools folder, disk, toolchain, browser, port).
  // A missing piece is one line with the command that fixes it; nothing slow runs after it.
  { name: 'preflight', cmd: node, args: [join(ROOT, 'test/tools/preflight.mjs')], fatal: true, gate: true },
  { name: 'build', cmd: node, args: [join(ROOT, 'build.mjs')], fatal: true },
  { name: 'typecheck', cmd: node, args: [bin('typescript', 'bin/tsc'), '--noEmit', '-p', 'tsconfig.json'] },
  { name: 'lint', cmd: node, args: [bin('eslint', 'bin/eslint.js'), '-c', 'test/eslint.config.mjs', 'src', 'test'] },
  { name: 'unit', cmd: node, args: [bin('mocha', 'bin/mocha.js'), '--config', 'test/unit/.mocharc.json'], mocha: true },
  // Node 24 + code-server into .tools/ once (a no-op when present). On a new machine the install takes ~3 minutes,
  // mostly download and unpacking: it starts in the background right after preflight and overlaps build, typecheck,
  // lint and the unit suite (which use one core); this step waits for it and prints its output.
  { name: 'tools', cmd: node, args: [join(ROOT, 'test/tools/installTools.mjs')], gate: true, background: true },
  { name: 'integration', cmd: node, args: [join(ROOT, 'test/tools/runIntegration.mjs'), '--no-build'], mocha: true },
  // The same runner with workspace trust on: the *.restricted.test.ts files in Restricted Mode.
  { name: 'restricted', cmd: node, args: [join(ROOT, 'test/tools/runIntegration.mjs'), '--no-build', '--restricted'], mocha: true },
  // Last: the production build for the .vsix replaces dist/ and empties out/.
  { name: 'vsix', cmd: node, args: [join(ROOT, 'test/tools/vsixCheck.mjs')], check: true },
];

let interrupted = false;
process.on('SIGINT', () => { interrupted = true; });

const totals = { passed: 0, failed: 0, skipped: 0 };
const report = [];
const failures = [];
let ok = true;
const background = new Map(); // background steps started and not yet waited for: name → { done, child, t0 }
for (const step of steps) {
  if (interrupted) break;
  console.log(`\n=== ${step.name} ===`);
  let t0 = Date.now();
  let result;
  const early = background.get(step.name);
  if (early) {
    background.delete(step.name);
    const waitFrom = Date.now();
    t0 = early.t0;
    result = await early.done;
    process.stdout.write(result.text);
    console.log(`[${step.name}] ran in the background since preflight; this step waited ${((Date.now() - waitFrom) / 1000).toFixed(1)} s for it`);
  } else {
    result = await start(step.cmd, step.args).done;
  }
  const { code, text } = result;
  const secs = ((Date.now() - t0) / 1000).toFixed(1);
  let note = code === 0 ? 'ok' : `exit ${code}`;
  let stepOk = code === 0;
  if (step.mocha) {
    const c = mochaCounts(text);
    if (!c) { stepOk = false; note += ', no test results (mocha did not finish)'; totals.failed += 1; }
    else {
      totals.passed += c.passed; totals.failed += c.failed; totals.skipped += c.skipped;
      note += `, ${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped`;
      if (c.passed + c.failed === 0) { stepOk = false; note += ', ran 0 tests'; }
      if (c.failed) failures.push(`  ${step.name}:`, ...mochaFailures(text));
    }
  } else if (step.gate) {
    if (code !== 0) totals.failed += 1;
  } else if (step.check) {
    // The .vsix check is one end-to-end check: it counts as one test.
    if (code === 0) totals.passed += 1; else totals.failed += 1;
  }
  if (early) note += ', in the background';
  report.push(`  ${step.name.padEnd(12)} ${secs.padStart(6)} s  ${stepOk ? 'PASS' : 'FAIL'}  ${note}`);
  if (!stepOk) ok = false;
  if (!stepOk && step.fatal) break;
  if (step.name === 'preflight') {
    for (const bg of steps.filter((x) => x.background)) background.set(bg.name, { ...start(bg.cmd, bg.args, { quiet: true }), t0: Date.now() });
  }
}
// A fatal stop or an interrupt leaves a background install unfinished: stop it (its marker is written only when complete).
for (const bg of background.values()) bg.child.kill();

console.log('\n=== summary ===');
console.log(report.join('\n'));
if (failures.length) console.log(`failed tests:\n${failures.join('\n')}`);
if (interrupted) ok = false;
if (totals.passed + totals.failed === 0) ok = false;
const skipped = totals.skipped ? `, ${totals.skipped} skipped` : '';
console.log(`${totals.passed} passed, ${totals.failed} failed${skipped}`);
process.exit(ok && totals.failed === 0 ? 0 : 1);
