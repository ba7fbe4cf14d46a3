// The poison gate's views of a text (poisonGate.ts): one normalisation pass builds a few folded "views" — NFKC,
// zero-width stripped, homoglyphs → Latin, diacritics folded, spaced letters joined, l33t digits read as letters,
// base64 blobs and Unicode tag runs decoded — joined by a separator no detector pattern crosses. The detectors and the
// learned stage read these, never the raw text. Pure and synchronous.

const ZERO_WIDTH = /[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u206a-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb]|[\u{1d173}-\u{1d17a}\u{e0000}-\u{e007f}\u{e0100}-\u{e01ef}]/gu;
// Blank look-alikes that separate words (braille blank, ideographic/other wide spaces NFKC leaves alone).
const BLANKS = /[\u2800\u2028\u2029]/g;
// Unicode tag characters (U+E0020–E007E) mirror printable ASCII and render as nothing: "ASCII smuggling".
// They are stripped from the text and their ASCII reading is gated as a view of its own.
const TAG_RUN = /[\u{e0020}-\u{e007e}]{4,}/gu;
const COMBINING = /\p{M}+/gu;

// Cyrillic and Greek letters that render like Latin ones (confusables subset; only look-alikes).
const HOMOGLYPHS: Record<string, string> = {
  'а': 'a', 'в': 'b', 'е': 'e', 'ё': 'e', 'к': 'k', 'м': 'm', 'н': 'h', 'о': 'o', 'р': 'p', 'с': 'c', 'т': 't', 'у': 'y',
  'х': 'x', 'і': 'i', 'ї': 'i', 'ј': 'j', 'ѕ': 's', 'ԁ': 'd', 'ԛ': 'q', 'ԝ': 'w', 'ү': 'y', 'һ': 'h', 'ӏ': 'l',
  'А': 'a', 'В': 'b', 'Е': 'e', 'К': 'k', 'М': 'm', 'Н': 'h', 'О': 'o', 'Р': 'p', 'С': 'c', 'Т': 't', 'Х': 'x',
  'І': 'i', 'Ј': 'j', 'Ѕ': 's', 'У': 'y',
  'α': 'a', 'β': 'b', 'ε': 'e', 'ι': 'i', 'κ': 'k', 'ν': 'v', 'ο': 'o', 'ρ': 'p', 'τ': 't', 'υ': 'u', 'χ': 'x',
  'Α': 'a', 'Β': 'b', 'Ε': 'e', 'Ζ': 'z', 'Η': 'h', 'Ι': 'i', 'Κ': 'k', 'Μ': 'm', 'Ν': 'n', 'Ο': 'o', 'Ρ': 'p',
  'Τ': 't', 'Υ': 'y', 'Χ': 'x', 'ϲ': 'c', 'ϳ': 'j', 'Ϲ': 'c',
  // Latin look-alikes outside ASCII that NFKC keeps: IPA (U+0261 ɡ …), dotless i/j, small capitals,
  // Armenian letters shaped like Latin ones.
  'ɡ': 'g', 'ɑ': 'a', 'ɩ': 'i', 'ı': 'i', 'ȷ': 'j', 'ǀ': 'l', 'ɛ': 'e', 'ʋ': 'v', 'ɾ': 'r', 'ʂ': 's',
  'ᴀ': 'a', 'ʙ': 'b', 'ᴄ': 'c', 'ᴅ': 'd', 'ᴇ': 'e', 'ꜰ': 'f', 'ɢ': 'g', 'ʜ': 'h', 'ɪ': 'i', 'ᴊ': 'j', 'ᴋ': 'k',
  'ʟ': 'l', 'ᴍ': 'm', 'ɴ': 'n', 'ᴏ': 'o', 'ᴘ': 'p', 'ꞯ': 'q', 'ʀ': 'r', 'ꜱ': 's', 'ᴛ': 't', 'ᴜ': 'u', 'ᴠ': 'v',
  'ᴡ': 'w', 'ʏ': 'y', 'ᴢ': 'z',
  'օ': 'o', 'ս': 'u', 'հ': 'h', 'ո': 'n', 'ց': 'g', 'ք': 'p', 'զ': 'q',
};
const HOMOGLYPH_RE = new RegExp(`[${Object.keys(HOMOGLYPHS).join('')}]`, 'gu');

const LEET: Record<string, string> = { '0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '$': 's', '@': 'a', '€': 'e' };
// Tokens of letters and l33t digits; only those mixing both are rewritten ("1gn0r3", "4ll", "@ll"; "2024"
// stays; "bob@example.com" stays: an '@' token followed by a dot is an address).
// Tokenise-then-test keeps this linear (a single mixed-token regex backtracks quadratically on long words).
const LEET_TOKEN = /[\p{L}0-9$@€]+/gu;
const HAS_LETTER = /\p{L}/u;
const HAS_LEET = /[0-9$@€]/;
const LEET_CHARS = /[0-9$@€]/g;

// Three or more single letters separated by one or two separator chars: "i g n o r e", "p.r.e.v",
// "i  g  n  o  r  e" (a wider gap, three or more blanks, still separates words).
const SPACED = /(?<![\p{L}\p{N}])\p{L}(?:[ .\-_*·|~+]{1,2}\p{L}(?![\p{L}\p{N}])){2,}/gu;

// Candidate base64 blobs: 20+ chars (15+ bytes decoded), the shortest injection worth hiding.
const BASE64 = /[A-Za-z0-9+/]{20,}={0,2}/g;

/** The base fold of a text: NFKC, zero-width and homoglyphs out, diacritics folded, lower case, quotes unified. */
export function fold(s: string): string {
  return s
    .normalize('NFKC')
    .replace(ZERO_WIDTH, '')
    .replace(BLANKS, ' ')
    .replace(HOMOGLYPH_RE, (c) => HOMOGLYPHS[c] ?? c)
    .normalize('NFKD')
    .replace(COMBINING, '')
    .toLowerCase()
    .replace(/[\u2018\u2019\u02bc`´]/g, "'")
    .replace(/[\u201c\u201d\u201e«»]/g, '"');
}

/** A spaced-letter run with mixed separators: the shortest separator joins letters, any other parts words. */
function partWords(run: string): string {
  const seps = run.match(/[^\p{L}]+/gu) ?? [];
  const shortest = seps.reduce((a, b) => (b.length < a.length ? b : a), seps[0] ?? '');
  return run.replace(/[^\p{L}]+/gu, (x) => (x === shortest ? '' : ' '));
}

function squeeze(s: string): string {
  return s.replace(/[ \t\u00a0]+/g, ' ');
}

function decodeBase64Blobs(raw: string): string[] {
  const out: string[] = [];
  const blobs = raw.match(BASE64);
  if (!blobs) return out;
  for (const b of blobs) {
    if (!/[a-z]/.test(b) || !/[A-Z0-9]/.test(b)) continue; // a long plain word is not base64
    const buf = Buffer.from(b, 'base64');
    const text = buf.toString('utf8');
    if (text.includes('\ufffd')) continue;
    let printable = 0;
    for (const ch of text) if (ch >= ' ' || ch === '\n' || ch === '\t') printable++;
    if (printable / Math.max(1, text.length) > 0.95 && /\p{L}{3,}\s+\p{L}{2,}/u.test(text)) out.push(text);
  }
  return out;
}

/** Runs of Unicode tag characters read as the ASCII they mirror. */
function decodeTagRuns(raw: string): string[] {
  const runs = raw.match(TAG_RUN);
  if (!runs) return [];
  return runs.map((r) => String.fromCodePoint(...[...r].map((c) => c.codePointAt(0)! - 0xe0000)));
}

function unLeet(s: string): string {
  return s.replace(LEET_TOKEN, (m: string, offset: number) => {
    if (!HAS_LEET.test(m) || !HAS_LETTER.test(m)) return m;
    if (m.includes('@') && s.charCodeAt(offset + m.length) === 46) return m; // an e-mail address
    if (/^@\p{L}{4,}$/u.test(m)) return m; // a mention (@renovate), not l33t: "@ll" still reads "all"
    return m.replace(LEET_CHARS, (d) => LEET[d] ?? d);
  });
}

/** The folded views every detector runs over, joined by a separator no pattern crosses. */
export function gateViews(text: string): string {
  const views = new Set<string>();
  const sources = [text, ...decodeBase64Blobs(text), ...decodeTagRuns(text)];
  for (const src of sources) {
    const f = fold(src);
    views.add(squeeze(f));
    // Spaced letters are joined before whitespace is squeezed: "i g n o r e   a l l" keeps its word gaps.
    let mixed = false; // mixed separators in a run: "p.l.e.a.s.e  i.g.n.o.r.e", "b i t t e  v e r g i s s"
    const joined = squeeze(f.replace(SPACED, (m) => { mixed ||= new Set(m.match(/[^\p{L}]+/gu)).size > 1; return m.replace(/[ .\-_*·|~+]/g, ''); }));
    views.add(joined);
    if (mixed) views.add(squeeze(f.replace(SPACED, partWords))); // the shortest separator joins letters, wider ones part words
    if (HAS_LEET.test(joined)) views.add(unLeet(joined));
  }
  return [...views].join('\n\u0000\n');
}
