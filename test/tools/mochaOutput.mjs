// Reading mocha's spec-reporter output for `npm test`'s summary (test/tools/runAll.mjs): the closing counts, and
// the failures by title — a CI log may show only its tail, so the summary must name what failed.

/** Mocha's closing counts ("N passing", "N failing", "N pending"); null when mocha never got there. */
export function mochaCounts(text) {
  const plain = text.replace(/\x1b\[[0-9;]*m/g, '');
  const last = (word) => {
    const all = [...plain.matchAll(new RegExp(`^\\s*(\\d+) ${word}\\b`, 'gm'))];
    return all.length ? Number(all[all.length - 1][1]) : null;
  };
  const passed = last('passing');
  if (passed === null) return null;
  return { passed, failed: last('failing') ?? 0, skipped: last('pending') ?? 0 };
}

/** The failures mocha listed after its counts — each one's title and first lines of its error — so the summary
 *  at the end (all a CI log's tail may show) names what failed. At most `max` lines. */
export function mochaFailures(text, max = 40) {
  const plain = text.replace(/\x1b\[[0-9;]*m/g, '').split('\n');
  let start = -1;
  for (let i = plain.length - 1; i >= 0; i--) if (/^\s*\d+ failing\b/.test(plain[i])) { start = i + 1; break; }
  if (start < 0) return [];
  const out = [];
  let inFailure = false;
  let kept = 0;
  for (const line of plain.slice(start)) {
    if (/^\s+\d+\) /.test(line)) { inFailure = true; kept = 0; }
    if (!inFailure || !line.trim()) continue;
    // The title lines and the error's first lines, not the whole stack.
    if (/^\s+at /.test(line)) { inFailure = false; continue; }
    if (kept++ < 12) out.push(`    ${line.trim()}`.slice(0, 300));
  }
  return out.slice(0, max);
}
