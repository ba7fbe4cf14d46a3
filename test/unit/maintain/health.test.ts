import assert from 'node:assert/strict';
import { HealthMonitor, healthLevel } from '../../../src/engine/maintain/health';
import { DEFAULT_SETTINGS } from '../../../src/engine/settings';

const MB = 1024 * 1024;

function monitor(every = 1) {
  const state = { rss: 100 * MB };
  const m = new HealthMonitor({ everyNTurns: every, warnBytes: 256 * MB, critBytes: 512 * MB, sample: () => state.rss });
  return { m, state };
}

describe('HealthMonitor', () => {
  it('rates memory use against the warn and critical thresholds', () => {
    assert.equal(healthLevel(255 * MB, 256 * MB, 512 * MB), 'ok');
    assert.equal(healthLevel(256 * MB, 256 * MB, 512 * MB), 'warn');
    assert.equal(healthLevel(512 * MB, 256 * MB, 512 * MB), 'critical');
  });

  it('checks only every N turns', () => {
    const { m } = monitor(3);
    assert.equal(m.onTurn(), undefined);
    assert.equal(m.onTurn(), undefined);
    assert.equal(m.onTurn()?.level, 'ok');
    assert.equal(m.onTurn(), undefined);
  });

  it('gives a notice once when the level worsens from ok to warn', () => {
    const { m, state } = monitor();
    m.onTurn();
    assert.equal(m.notice(), null);
    state.rss = 300 * MB;
    m.onTurn();
    const n = m.notice();
    assert.match(n ?? '', /warning: memory holds 300 MB in RAM \(its database, indexes and caches; warning above 256 MB\)/);
    assert.ok(!n!.includes('\n'), 'one line');
    assert.equal(m.notice(), null);
    m.onTurn();
    m.onTurn();
    assert.equal(m.notice(), null, 'the same level is not repeated');
  });

  it('gives a new notice when warn escalates to critical, and only once', () => {
    const { m, state } = monitor();
    state.rss = 300 * MB;
    m.onTurn();
    assert.ok(m.notice());
    state.rss = 600 * MB;
    m.onTurn();
    assert.match(m.notice() ?? '', /critical: memory holds 600 MB in RAM .*critical above 512 MB/);
    m.onTurn();
    assert.equal(m.notice(), null);
  });

  it('gives a single critical notice when ok jumps straight to critical', () => {
    const { m, state } = monitor();
    state.rss = 700 * MB;
    m.onTurn();
    assert.match(m.notice() ?? '', /critical/);
    assert.equal(m.notice(), null);
  });

  it('announces a level again only after it recovered and worsened again', () => {
    const { m, state } = monitor();
    state.rss = 600 * MB;
    m.onTurn();
    assert.match(m.notice() ?? '', /critical/);
    state.rss = 300 * MB; // recovered to warn: no notice for an improvement
    m.onTurn();
    assert.equal(m.notice(), null);
    state.rss = 600 * MB; // worsened again
    m.onTurn();
    assert.match(m.notice() ?? '', /critical/);
    state.rss = 100 * MB;
    m.onTurn();
    state.rss = 300 * MB;
    m.onTurn();
    assert.match(m.notice() ?? '', /warning/);
  });

  it('drops a notice not yet shown when the use recovered before the next answer', () => {
    const { m, state } = monitor();
    state.rss = 300 * MB;
    m.onTurn();
    state.rss = 100 * MB;
    m.onTurn();
    assert.equal(m.notice(), null);
    assert.equal(m.level, 'ok');
  });

  it('takes its defaults from the settings (every 50 turns, 256 MB, 512 MB)', () => {
    let samples = 0;
    const m = HealthMonitor.fromSettings(DEFAULT_SETTINGS, () => { samples++; return 300 * MB; });
    for (let i = 0; i < 49; i++) assert.equal(m.onTurn(), undefined);
    assert.equal(m.onTurn()?.level, 'warn');
    assert.equal(samples, 1);
    assert.equal(m.reading?.bytes, 300 * MB);
  });
});
