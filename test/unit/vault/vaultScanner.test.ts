import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MemoryLogger } from '../../../src/engine/host';
import { pathHash, scanVaultTree, type ScanOptions } from '../../../src/engine/vault/vaultScanner';

const scanVault = async (dir: string, opts?: ScanOptions) => (await scanVaultTree(dir, opts)).entries;

function put(root: string, rel: string, content: string | Buffer) {
  const p = path.join(root, ...rel.split('/'));
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, content);
}

describe('scanVault', () => {
  it('parses notes in path order, skips hidden folders, logs/, longterm.md and non-Markdown files', async () => {
    const v = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-scan-'));
    put(v, 'semantic/b.md', 'B');
    put(v, 'semantic/a.md', '---\nkind: user\n---\nA');
    put(v, 'procedural/Über mich – Café.md', 'Rule with spaces and non-ASCII');
    put(v, '.quarantine/q1/semantic/x.md', 'quarantined');
    put(v, '.obsidian/workspace.md', 'app state');
    put(v, 'logs/2024-01-01.md', '### user\nhi');
    put(v, 'longterm.md', 'long');
    put(v, 'semantic/pic.png', Buffer.from([0x89, 0x50]));
    const entries = await scanVault(v);
    assert.deepEqual(entries.map((e) => e.relPath), ['procedural/Über mich – Café.md', 'semantic/a.md', 'semantic/b.md']);
    assert.equal(entries[0].parsed?.kind, 'feedback');
    assert.equal(entries[0].id, 'vt:procedural/Über mich – Café.md');
    assert.equal(entries[1].parsed?.kind, 'user');
  });

  it('reports binary and huge files as problems and logs a code and a path hash, never content or path', async () => {
    const v = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-scan-'));
    put(v, 'semantic/bin.md', Buffer.from([0x00, 0x01, 0x02, 0x03, 0x53, 0x45, 0x43, 0x52, 0x45, 0x54]));
    put(v, 'semantic/huge.md', Buffer.alloc(1024 * 1024 + 10, 0x61));
    put(v, 'semantic/ok.md', 'fine');
    const logger = new MemoryLogger();
    const entries = await scanVault(v, { logger });
    const byPath = Object.fromEntries(entries.map((e) => [e.relPath, e]));
    assert.equal(byPath['semantic/bin.md'].problem?.code, 'binary');
    assert.equal(byPath['semantic/huge.md'].problem?.code, 'too_large');
    assert.equal(byPath['semantic/ok.md'].parsed?.summary, 'fine');
    const skipped = logger.lines.filter((l) => l.event === 'vault.scan.skipped');
    assert.deepEqual(skipped.map((l) => l.fields?.code).sort(), ['binary', 'too_large']);
    assert.ok(skipped.every((l) => l.fields?.pathHash === pathHash('semantic/bin.md') || l.fields?.pathHash === pathHash('semantic/huge.md')));
    const logged = JSON.stringify(logger.lines);
    assert.ok(!logged.includes('SECRET') && !logged.includes('bin.md') && !logged.includes('huge.md'));
  });

  it('does not follow symlinks that leave the vault, but reports them', async () => {
    const v = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-scan-'));
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-outside-'));
    fs.writeFileSync(path.join(outside, 'private.md'), 'PRIVATE outside text');
    put(v, 'semantic/real.md', 'real');
    fs.symlinkSync(path.join(outside, 'private.md'), path.join(v, 'semantic', 'link.md'));
    fs.symlinkSync(outside, path.join(v, 'semantic', 'dirlink'));
    fs.symlinkSync(path.join(v, 'semantic', 'real.md'), path.join(v, 'semantic', 'alias.md'));
    const entries = await scanVault(v);
    const byPath = Object.fromEntries(entries.map((e) => [e.relPath, e]));
    assert.equal(byPath['semantic/link.md'].problem?.code, 'symlink_outside');
    assert.equal(byPath['semantic/link.md'].parsed, undefined);
    assert.equal(byPath['semantic/dirlink'].problem?.code, 'symlink_outside');
    assert.equal(byPath['semantic/dirlink/private.md'], undefined);
    assert.equal(byPath['semantic/alias.md'].parsed?.body, 'real');
    assert.ok(!JSON.stringify(entries).includes('PRIVATE'));
  });

  it('yields nothing for a vault folder that does not exist yet', async () => {
    const missing = path.join(os.tmpdir(), 'no-such-vault-' + process.pid + '-' + Date.now());
    const seen = [];
    for (const e of await scanVault(missing)) seen.push(e);
    assert.deepEqual(seen, []);
  });
});
