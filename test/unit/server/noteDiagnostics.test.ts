// Frontmatter and secret diagnostics of a note, on the lines that cause them.
import * as assert from 'node:assert/strict';
import { noteDiagnostics } from '../../../src/server/noteDiagnostics';

describe('Note diagnostics', () => {
  it('reports nothing for a clean note', () => {
    assert.deepEqual(noteDiagnostics('semantic/a.md', '---\nkind: user\nsummary: fine\n---\nBody.\n'), []);
  });

  it('points an unknown trust at the trust line', () => {
    const d = noteDiagnostics('semantic/a.md', '---\nkind: user\ntrust: total\n---\nx\n');
    assert.deepEqual(d.map((x) => [x.code, x.line, x.severity]), [['unknown_trust', 2, 2]]);
  });

  it('points a bad tags field at the tags line', () => {
    const d = noteDiagnostics('semantic/a.md', '---\nkind: user\ntags: {a: 1}\n---\nx\n');
    assert.deepEqual(d.map((x) => [x.code, x.line]), [['bad_field', 2]]);
  });

  it('places malformed YAML on the reported line, and on the opening line when YAML is no map', () => {
    const bad = noteDiagnostics('semantic/a.md', '---\nkind: user\nsummary: [unclosed\nother: 1\n---\nx\n');
    assert.equal(bad[0].code, 'malformed_frontmatter');
    assert.ok(bad[0].line >= 1 && bad[0].line <= 4);
    const list = noteDiagnostics('semantic/a.md', '---\n- a\n- b\n---\nx\n');
    assert.deepEqual(list.map((x) => [x.code, x.line, x.severity]), [['malformed_frontmatter', 0, 1]]);
  });

  it('handles CRLF line endings and an unclosed frontmatter block without throwing', () => {
    const d = noteDiagnostics('semantic/a.md', '---\r\nkind: nope\r\n---\r\nx\r\n');
    assert.deepEqual(d.map((x) => [x.code, x.line, x.endChar]), [['unknown_kind', 1, 10]]);
    assert.deepEqual(noteDiagnostics('semantic/a.md', '---\nkind: nope\nno close\n'), [], 'an unclosed block is body text');
  });

  it('gives one diagnostic per line with a secret, and one for a key spanning lines', () => {
    const text = 'password: Hunter2Hunter2!\nnothing\ntoken = ghp_abcdefghijklmnopqrstuvwxyz0123456789AB\n';
    assert.deepEqual(noteDiagnostics('semantic/a.md', text).map((x) => [x.code, x.line]), [['likely_secret', 0], ['likely_secret', 2]]);
    const pem = 'x\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----\n';
    const d = noteDiagnostics('semantic/a.md', pem);
    assert.deepEqual(d.map((x) => [x.code, x.line]), [['likely_secret', 1]]);
    assert.match(d[0].message, /private_key/);
  });

  it('accepts the contains-secrets tag from the body as well', () => {
    assert.deepEqual(noteDiagnostics('semantic/a.md', 'password: Hunter2Hunter2! #contains-secrets\n'), []);
  });
});
