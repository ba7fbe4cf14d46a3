// Required literal factors of a regular expression (the poison gate's prefilter, poisonGate.ts): sets of strings such
// that every string the expression matches contains at least one string of each set. A view in which some set has no
// occurrence cannot match, so the detector is not run — the verdict is the same by construction, only cheaper.
//
// Derived mechanically from the RegExp's source by a small parser for JavaScript's pattern syntax. Conservative:
// whatever it does not model exactly (classes of more than a few characters, \w \s \d \p{…}, `.`, backreferences,
// the `i` and `v` flags, a source it cannot parse) contributes no factor, and a pattern without factors is always run.
// Zero-width items (^ $ \b \B, lookarounds) match the empty string, so they join literals around them ("\bfoo\b": foo).
// For each node the parser computes
//   exact — the finite set of all strings the node matches (when it is small), and
//   cnf   — clauses of required factors: every match contains a string of every clause.
// Concatenation: the clauses of its parts, plus the products of runs of consecutive exact parts ("ignore" "\s+" …:
// {ignore}); alternation: one clause, the union of each branch's best clause (a branch without one: none); repetition
// at least once: the part's clauses; optional or starred: none. Pure, no imports.

/** What a (sub)pattern is known to match: its exact strings (null: unknown or too many) and its required factor clauses. */
export interface PatternInfo { exact: string[] | null; cnf: string[][] }

const MAX_EXACT = 64; // strings in an exact set or a product of exact sets
const MAX_CLAUSES = 4; // factor clauses kept per node (the most selective)
const MAX_CLASS = 16; // characters in a class read as an exact set

const ZERO: PatternInfo = { exact: [''], cnf: [] };
const ANY: PatternInfo = { exact: null, cnf: [] };

class Unsupported extends Error {}

const uniq = (xs: string[]): string[] => [...new Set(xs)];

/** Whether `x` contains one of the strings of `set` (checked through x's substrings: x is short). */
function containsOne(x: string, set: ReadonlySet<string>, maxLen: number): boolean {
  for (let i = 0; i < x.length; i++) {
    for (let j = i + 1; j <= x.length && j - i <= maxLen; j++) if (set.has(x.slice(i, j))) return true;
  }
  return false;
}

/**
 * A clause without the strings that extend another of its strings (when the longer occurs, so does the shorter).
 * Prefixes and suffixes only (two sorts): a clause left larger than it could be is only slower to scan, never wrong.
 */
const MINIMAL = new WeakSet<string[]>();
function minimize(clause: string[]): string[] {
  if (MINIMAL.has(clause)) return clause;
  const byPrefix: string[] = [];
  for (const x of uniq(clause).sort()) if (byPrefix.length === 0 || !x.startsWith(byPrefix[byPrefix.length - 1])) byPrefix.push(x);
  const reversed = (x: string) => [...x].reverse().join('');
  const bySuffix: string[] = [];
  for (const r of byPrefix.map(reversed).sort()) if (bySuffix.length === 0 || !r.startsWith(bySuffix[bySuffix.length - 1])) bySuffix.push(r);
  const out = bySuffix.map(reversed);
  MINIMAL.add(out);
  return out;
}

// A rough chance that a string occurs in ordinary text, to rank clauses (only speed depends on it, never a verdict):
// letters and digits are common, a blank more, rare punctuation ("@", "://", "<|") and non-ASCII letters less.
function charWeight(c: number): number {
  if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) return 0.35;
  if (c === 32) return 0.6;
  if (c === 46 || c === 44 || c === 39 || c === 10) return 0.3;
  return c < 128 ? 0.03 : 0.02;
}
const CHANCE = new WeakMap<string[], number>();
function chance(clause: string[]): number {
  let sum = CHANCE.get(clause);
  if (sum !== undefined) return sum;
  sum = 0;
  for (const s of clause) {
    let p = 1;
    for (let i = 0; i < s.length; i++) p *= charWeight(s.charCodeAt(i));
    sum += p;
  }
  sum = Math.min(1, sum);
  CHANCE.set(clause, sum);
  return sum;
}

const KEY = new WeakMap<string[], string>();
function keyOf(clause: string[]): string {
  let key = KEY.get(clause);
  if (key === undefined) { key = clause.join('\u0000'); KEY.set(clause, key); }
  return key;
}

/** The most selective clauses first, minimized, without duplicates and without (small) clauses another one implies. */
function keep(cnf: string[][]): string[][] {
  if (cnf.length === 0) return cnf;
  const ranked = cnf.filter((c) => c.length > 0 && !c.includes('')).map(minimize).sort((a, b) => chance(a) - chance(b));
  const out: string[][] = [];
  const keys = new Set<string>();
  for (const c of ranked) {
    const key = keyOf(c);
    if (keys.has(key)) continue;
    const maxLen = c.reduce((m, s) => Math.max(m, s.length), 0);
    if (c.length <= 8 && maxLen <= 8) {
      // Implied: every string of a kept clause contains one of c's (an occurrence of the kept clause is one of c).
      const set = new Set(c);
      if (out.some((k) => k.length <= 64 && k.every((x) => containsOne(x, set, maxLen)))) continue;
    }
    keys.add(key);
    out.push(c);
    if (out.length === MAX_CLAUSES) break;
  }
  return out;
}

function product(a: string[], b: string[]): string[] | null {
  if (a.length * b.length > MAX_EXACT) return null;
  const out: string[] = [];
  for (const x of a) for (const y of b) out.push(x + y);
  return uniq(out);
}

// A literal or a small class is exact: its characters join the run of exact parts it stands in (seq), which makes the clause.
function literal(c: string): PatternInfo {
  return { exact: [c], cnf: [] };
}

function seq(parts: PatternInfo[]): PatternInfo {
  // Consecutive single strings (literals, zero-width items) are one string: fewer products below.
  const items: PatternInfo[] = [];
  for (const p of parts) {
    const last = items[items.length - 1];
    if (last && last.exact?.length === 1 && p.exact?.length === 1 && last.cnf.length === 0 && p.cnf.length === 0) items[items.length - 1] = { exact: [last.exact[0] + p.exact[0]], cnf: [] };
    else items.push(p);
  }
  if (items.length === 1 && items[0].cnf.length > 0) return items[0];
  let exact: string[] | null = [''];
  const cnf: string[][] = [];
  let run: string[] | null = null;
  const emit = () => {
    if (run && !run.includes('')) cnf.push(run);
    run = null;
  };
  for (const it of items) {
    if (exact && it.exact) exact = product(exact, it.exact);
    else exact = null;
    cnf.push(...it.cnf);
    if (it.exact) {
      const p: string[] | null = product(run ?? [''], it.exact);
      if (p) run = p;
      else { emit(); run = it.exact; }
    } else emit();
  }
  emit();
  return { exact, cnf: keep(cnf) };
}

function alt(branches: PatternInfo[]): PatternInfo {
  let all: Set<string> | null = new Set();
  for (const b of branches) {
    if (!all || !b.exact) { all = null; break; }
    for (const x of b.exact) all.add(x);
    if (all.size > MAX_EXACT) all = null;
  }
  const exact = all ? [...all] : null;
  if (branches.length === 1) return { exact, cnf: branches[0].cnf };
  if (branches.some((b) => b.cnf.length === 0)) return { exact, cnf: [] };
  // One clause per clause of the first branch: its strings, with the same clause of every other branch when it has it
  // (shared parts: "EXFIL_SENSITIVE … EXFIL_TARGET" in each branch), else that branch's best clause.
  const combos: string[][] = [];
  for (const c of branches[0].cnf) {
    const key = keyOf(c);
    const union = [...c];
    for (const b of branches.slice(1)) union.push(...(b.cnf.find((x) => keyOf(x) === key) ?? b.cnf[0]));
    combos.push(union);
  }
  combos.push(branches.flatMap((b) => b.cnf[0])); // every branch's best (keep() sorted each branch's clauses)
  return { exact, cnf: keep(combos) };
}

function repeat(x: PatternInfo, min: number, max: number): PatternInfo {
  if (min === 0) return { exact: max === 1 && x.exact ? uniq(['', ...x.exact]) : null, cnf: [] };
  let exact: string[] | null = null;
  if (min === max && x.exact) {
    exact = [''];
    for (let k = 0; k < min && exact; k++) exact = product(exact, x.exact);
  }
  return { exact, cnf: x.cnf };
}

const SYNTAX = new Set([...'^$\\.*+?()[]{}|/']);
const QUANTIFIER = /\{(\d+)(,(\d*))?\}/y;
const HEX = /x([0-9a-fA-F]{2})/y;
const UNICODE_ESCAPE = /u(?:([0-9a-fA-F]{4})|\{([0-9a-fA-F]+)\})/y;

class Parser {
  i = 0;
  constructor(private readonly s: string, private readonly unicode: boolean) {}

  /** A sticky pattern's match at the current position. */
  private sticky(re: RegExp): RegExpExecArray | null {
    re.lastIndex = this.i;
    return re.exec(this.s);
  }

  parse(): PatternInfo {
    const info = this.alternation();
    if (this.i !== this.s.length) throw new Unsupported(`unexpected ${this.s[this.i]}`);
    return info;
  }

  private alternation(): PatternInfo {
    const branches = [this.sequence()];
    while (this.s[this.i] === '|') {
      this.i++;
      branches.push(this.sequence());
    }
    return alt(branches);
  }

  private sequence(): PatternInfo {
    const items: PatternInfo[] = [];
    while (this.i < this.s.length && this.s[this.i] !== '|' && this.s[this.i] !== ')') items.push(this.quantified());
    return seq(items);
  }

  private quantified(): PatternInfo {
    const atom = this.atom();
    const c = this.s[this.i];
    let min: number, max: number;
    if (c === '*') { min = 0; max = Infinity; this.i++; }
    else if (c === '+') { min = 1; max = Infinity; this.i++; }
    else if (c === '?') { min = 0; max = 1; this.i++; }
    else if (c === '{') {
      const m = this.sticky(QUANTIFIER);
      if (!m) throw new Unsupported('a brace that is no quantifier');
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
      this.i += m[0].length;
    } else return atom;
    if (this.s[this.i] === '?') this.i++; // lazy: the same strings
    return repeat(atom, min, max);
  }

  private atom(): PatternInfo {
    const s = this.s;
    const c = s[this.i];
    if (c === '(') {
      this.i++;
      let zeroWidth = false;
      if (s[this.i] === '?') {
        const head = s.slice(this.i, this.i + 3);
        if (head.startsWith('?:')) this.i += 2;
        else if (head.startsWith('?=') || head.startsWith('?!')) { this.i += 2; zeroWidth = true; }
        else if (head === '?<=' || head === '?<!') { this.i += 3; zeroWidth = true; }
        else if (head.startsWith('?<')) {
          const end = s.indexOf('>', this.i);
          if (end < 0) throw new Unsupported('group name');
          this.i = end + 1;
        } else throw new Unsupported(`group ${head}`);
      }
      const inner = this.alternation();
      if (s[this.i] !== ')') throw new Unsupported('unclosed group');
      this.i++;
      return zeroWidth ? ZERO : inner;
    }
    if (c === '[') return this.charClass();
    if (c === '.') { this.i++; return ANY; }
    if (c === '^' || c === '$') { this.i++; return ZERO; }
    if (c === '\\') return this.escape();
    if (c === '*' || c === '+' || c === '?' || c === '{' || c === '}' || c === ']' || c === ')' || c === undefined) throw new Unsupported(`${c} in atom position`);
    return literal(this.char());
  }

  /** One source character as the string it matches: a whole code point in unicode mode. */
  private char(): string {
    const cp = this.unicode ? this.s.codePointAt(this.i)! : this.s.charCodeAt(this.i);
    const ch = this.unicode ? String.fromCodePoint(cp) : this.s[this.i];
    this.i += ch.length;
    return ch;
  }

  /** An escape outside a class: a literal, or ANY for a class or backreference, or ZERO for \b \B. */
  private escape(): PatternInfo {
    this.i++; // the backslash
    const c = this.s[this.i];
    if (c === 'b' || c === 'B') { this.i++; return ZERO; }
    if (c === 'k' && (this.unicode || this.s.includes('(?<'))) throw new Unsupported('named backreference'); // could match empty: no factor, but keep it simple
    if (c !== undefined && /[1-9]/.test(c)) throw new Unsupported('backreference');
    const ch = this.escapedChar(false);
    return ch === null ? ANY : literal(ch);
  }

  /** The character an escape stands for, or null for a class escape (\d \w \s \p{…} and negations). */
  private escapedChar(inClass: boolean): string | null {
    const s = this.s;
    const c = s[this.i];
    if (c === undefined) throw new Unsupported('trailing backslash');
    if ('dDwWsS'.includes(c)) { this.i++; return null; }
    if ((c === 'p' || c === 'P') && this.unicode) {
      const end = s.indexOf('}', this.i);
      if (s[this.i + 1] !== '{' || end < 0) throw new Unsupported('\\p');
      this.i = end + 1;
      return null;
    }
    const simple: Record<string, string> = { n: '\n', r: '\r', t: '\t', v: '\v', f: '\f' };
    if (simple[c]) { this.i++; return simple[c]; }
    if (c === 'b' && inClass) { this.i++; return '\b'; }
    if (c === '0' && !/[0-9]/.test(s[this.i + 1] ?? '')) { this.i++; return '\0'; }
    if (c === 'x') {
      const m = this.sticky(HEX);
      if (!m) throw new Unsupported('\\x');
      this.i += m[0].length;
      return String.fromCharCode(parseInt(m[1], 16));
    }
    if (c === 'u') {
      const m = this.sticky(UNICODE_ESCAPE);
      if (!m || (m[2] !== undefined && !this.unicode)) throw new Unsupported('\\u');
      const cp = parseInt(m[1] ?? m[2], 16);
      if (cp >= 0xd800 && cp <= 0xdfff) throw new Unsupported('surrogate escape');
      this.i += m[0].length;
      return String.fromCodePoint(cp);
    }
    if (c === 'c') throw new Unsupported('\\c');
    if (/[0-9]/.test(c)) throw new Unsupported('octal or backreference');
    if (/[A-Za-z]/.test(c)) throw new Unsupported(`\\${c}`); // no other letter escape is an identity in unicode mode
    if (this.unicode && !SYNTAX.has(c) && c !== '-') throw new Unsupported(`\\${c}`);
    return this.char(); // identity escape: \. \/ \- \' …
  }

  /** A bracketed class: an exact set when it lists a few characters, else ANY. */
  private charClass(): PatternInfo {
    const s = this.s;
    this.i++; // [
    let negated = false;
    if (s[this.i] === '^') { negated = true; this.i++; }
    const chars = new Set<string>();
    let big = false;
    const member = (): string | null => {
      if (s[this.i] === '\\') { this.i++; return this.escapedChar(true); }
      return this.char();
    };
    while (true) {
      if (this.i >= s.length) throw new Unsupported('unclosed class');
      if (s[this.i] === ']') { this.i++; break; }
      const from = member();
      if (s[this.i] === '-' && s[this.i + 1] !== ']' && this.i + 1 < s.length) {
        this.i++;
        const to = member();
        if (from === null || to === null) throw new Unsupported('class range of a class escape');
        const a = from.codePointAt(0)!, b = to.codePointAt(0)!;
        if (b < a) throw new Unsupported('reversed range');
        if (b - a + 1 > MAX_CLASS) big = true;
        else for (let k = a; k <= b; k++) chars.add(String.fromCodePoint(k));
      } else if (from === null) big = true;
      else chars.add(from);
    }
    if (negated || big || chars.size === 0 || chars.size > MAX_CLASS) return ANY;
    return { exact: [...chars], cnf: [] };
  }
}

/** What a RegExp matches, as far as the parser models it (ANY when it cannot read the source). */
export function patternInfo(re: RegExp): PatternInfo {
  if (/[iv]/.test(re.flags)) return ANY; // case folding and set notation are not modelled
  try {
    return new Parser(re.source, re.unicode).parse();
  } catch (e) {
    if (e instanceof Unsupported) return ANY;
    throw e;
  }
}

/** Required factor clauses of a RegExp: every match contains a string of every clause. Empty: none known (always run). */
export function factorClauses(re: RegExp): string[][] {
  return patternInfo(re).cnf;
}

/**
 * Required factor clauses of a condition written as clauses of RegExps — every clause must have one RegExp matching
 * the text (or a part of it) for the condition to hold (a detector's `needs`, poisonGate.ts).
 */
export function needsClauses(needs: readonly (readonly RegExp[])[]): string[][] {
  const cnf: string[][] = [];
  for (const clause of needs) cnf.push(...alt(clause.map(patternInfo)).cnf);
  return keep(cnf);
}
