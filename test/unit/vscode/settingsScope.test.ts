// Issue #12: a cloned repository must not steer memory. Every `memory.*` setting declares a scope, and only the
// project identity may come from a workspace (window scope, and then only after the person confirms it).
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../../../..');
const WORKSPACE_SETTABLE = new Set(['memory.projectId', 'memory.projectType']);

describe('setting scopes (package.json)', () => {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    contributes: { configuration: { properties: Record<string, { scope?: string; description?: string; markdownDescription?: string }> } | { properties: Record<string, { scope?: string; description?: string; markdownDescription?: string }> }[] };
  };
  const sections = Array.isArray(pkg.contributes.configuration) ? pkg.contributes.configuration : [pkg.contributes.configuration];
  const props = Object.assign({}, ...sections.map((s) => s.properties)) as Record<string, { scope?: string; description?: string; markdownDescription?: string }>;

  it('gives every memory setting a scope: application for what is personal, window only for the project identity', () => {
    const keys = Object.keys(props).filter((k) => k.startsWith('memory.'));
    assert.ok(keys.length >= 30, `${keys.length} settings`);
    const wrong = keys.filter((k) => props[k]!.scope !== (WORKSPACE_SETTABLE.has(k) ? 'window' : 'application')).map((k) => `${k}: ${props[k]!.scope ?? 'no scope'}`);
    assert.deepEqual(wrong, []);
  });

  it('says in each description why it has its scope', () => {
    for (const [k, v] of Object.entries(props)) if (k.startsWith('memory.')) assert.match(v.description ?? v.markdownDescription ?? '', /Scope: /, `${k} explains its scope`);
  });
});
