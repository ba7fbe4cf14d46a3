// The Markdown injection grammar (SPEC R-UI-6), tokenised by VS Code's own TextMate engine
// (vscode-textmate + Oniguruma): wikilinks, memory ids, #tags and the daily logs' role headers.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as oniguruma from 'vscode-oniguruma';
import * as textmate from 'vscode-textmate';

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');
const GRAMMAR = path.join(ROOT, 'syntaxes', 'memory.injection.tmLanguage.json');

/** A stand-in host grammar: plain text lines, so only our injection colours anything. */
const HOST = { scopeName: 'text.html.markdown', patterns: [], repository: {} };

let grammar: textmate.IGrammar;

async function load(): Promise<textmate.IGrammar> {
  const wasm = readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new textmate.Registry({
    onigLib: Promise.resolve({ createOnigScanner: (s: string[]) => new oniguruma.OnigScanner(s), createOnigString: (s: string) => new oniguruma.OnigString(s) }),
    loadGrammar: async (scope) => {
      if (scope === 'text.html.markdown') return textmate.parseRawGrammar(JSON.stringify(HOST), 'host.json');
      if (scope === 'memory.markdown.injection') return textmate.parseRawGrammar(readFileSync(GRAMMAR, 'utf8'), GRAMMAR);
      return null;
    },
    getInjections: (scope) => (scope === 'text.html.markdown' ? ['memory.markdown.injection'] : undefined),
  });
  const g = await registry.loadGrammar('text.html.markdown');
  assert.ok(g);
  return g;
}

/** [text, scopes] of every token of one line. */
function tokens(line: string): [string, string][] {
  const r = grammar.tokenizeLine(line, textmate.INITIAL);
  return r.tokens.map((t) => [line.slice(t.startIndex, t.endIndex), t.scopes.join(' ')]);
}

function scopeOf(line: string, text: string): string {
  const t = tokens(line).find(([s]) => s === text);
  assert.ok(t, `a token "${text}" in ${JSON.stringify(tokens(line))}`);
  return t[1];
}

describe('Markdown injection grammar', () => {
  before(async () => { grammar = await load(); });

  it('marks the target, heading and alias of a wikilink', () => {
    const line = 'See [[projects/shop/checkout#Rules|the checkout rules]] first.';
    assert.match(scopeOf(line, 'projects/shop/checkout'), /memory\.wikilink/);
    assert.match(scopeOf(line, '#Rules'), /memory\.wikilink\.heading/);
    assert.match(scopeOf(line, 'the checkout rules'), /link\.description/);
  });

  it('marks memory ids, also inside a citation, without the trailing punctuation', () => {
    const line = 'As noted [source:vt:semantic/coffee.md], and in gs:conv-12.';
    assert.match(scopeOf(line, 'vt:semantic/coffee.md'), /memory\.id/);
    assert.match(scopeOf(line, 'gs:conv-12'), /memory\.id/);
  });

  it('marks #tags but not a Markdown heading or an issue-number-like fragment in a URL', () => {
    assert.match(scopeOf('Filed under #build/ci today', 'build/ci'), /entity\.name\.tag\.memory/);
    assert.ok(tokens('# Title').every(([, s]) => !/tag\.memory/.test(s)));
    assert.ok(tokens('see https://x.test/page#section').every(([, s]) => !/tag\.memory/.test(s)));
  });

  it('marks only exact role-header lines of a daily log', () => {
    assert.match(scopeOf('### user', 'user'), /memory\.role/);
    assert.match(scopeOf('### assistant', 'assistant'), /memory\.role/);
    assert.ok(tokens('### user story').every(([, s]) => !/memory\.role/.test(s)));
    assert.ok(tokens('### Summary').every(([, s]) => !/memory\.role/.test(s)));
  });
});
