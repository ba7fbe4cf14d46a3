// Secret masking (SPEC R-MEM-7): replaces IBANs, card numbers, API keys, private keys and passwords
// by class placeholders before a vault note is written or memory leaves for a remote model.
// Invariants: dates, times, versions, UUIDs and git SHAs survive; checksums (mod-97, Luhn) gate the
// number classes so random digit runs are kept; if the scan throws, callers withhold (maskOrWithhold).

export type SecretClass = 'iban' | 'card' | 'api_key' | 'private_key' | 'password';

export const PLACEHOLDER: Record<SecretClass, string> = {
  iban: '[IBAN]',
  card: '[CARD]',
  api_key: '[API_KEY]',
  private_key: '[PRIVATE_KEY]',
  password: '[PASSWORD]',
};

export interface MaskResult {
  text: string;
  /** Classes found, in order of first detection, each once. */
  classes: SecretClass[];
  /** Number of values replaced. */
  count: number;
}

interface Rule {
  name: string;
  cls: SecretClass;
  re: RegExp;
  /** Returns the replacement, or null to keep the match as it is. */
  replace: (m: RegExpExecArray) => string | null;
}

// Characters that continue a token; a key must not be a piece of a longer word.
const B = '(?<![A-Za-z0-9_\\-])';
const E = '(?![A-Za-z0-9_\\-])';

const keyRule = (name: string, body: string, accept: (key: string) => boolean = () => true): Rule => ({
  name, cls: 'api_key', re: new RegExp(`${B}${body}${E}`, 'g'),
  replace: (m) => (accept(m[0]) ? PLACEHOLDER.api_key : null),
});

// Real keys mix letters and digits; a hyphenated word after `sk-` does not.
const mixed = (k: string) => /[0-9]/.test(k) && /[A-Za-z]/.test(k);

/** Values that name a secret rather than hold it: env references, templates, placeholders. */
function isReference(v: string): boolean {
  return /^(?:\$|%|<|\{|\[|process\.env|os\.environ|env\.|secrets\.|\*+$|x+$|\.\.\.)/i.test(v);
}

/** Shannon entropy in bits per character. */
function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

function charClasses(s: string): number {
  return (/[a-z]/.test(s) ? 1 : 0) + (/[A-Z]/.test(s) ? 1 : 0) + (/[0-9]/.test(s) ? 1 : 0) + (/[^A-Za-z0-9]/.test(s) ? 1 : 0);
}

/**
 * A value after `password=` / `token:` that looks like a real secret: long enough, mixed character
 * classes, not a word. 8 chars / 2 classes / 2.5 bits: below that it is prose ("token: none").
 * Passwords are accepted from 6 chars because people choose short ones.
 */
function looksSecret(v: string, isPassword: boolean): boolean {
  if (isReference(v)) return false;
  if (/^(?:true|false|null|none|undefined|required|optional|string|number|boolean|redacted|changeme)$/i.test(v)) return false;
  const min = isPassword ? 6 : 8;
  if (v.length < min) return false;
  if (isPassword) return charClasses(v) >= 2 || v.length >= 12;
  return charClasses(v) >= 2 && entropy(v) >= 2.5;
}

const RULES: Rule[] = [
  {
    name: 'pem_private_key', cls: 'private_key',
    // An unterminated block is masked up to the end of its base64 body.
    re: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s:,.-]*)/g,
    replace: () => PLACEHOLDER.private_key,
  },
  {
    name: 'connection_string_password', cls: 'password',
    re: /\b([a-z][a-z0-9+.-]{1,30}:\/\/)([^\s:@/]+):([^\s@/]+)@/gi,
    replace: (m) => (isReference(m[3]) || m[3] === PLACEHOLDER.password ? null : `${m[1]}${m[2]}:${PLACEHOLDER.password}@`),
  },
  keyRule('anthropic_key', 'sk-ant-[A-Za-z0-9_\\-]{20,}', mixed),
  keyRule('openai_key', 'sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\\-]{20,}', mixed),
  keyRule('github_token', '(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})'),
  keyRule('gitlab_token', 'glpat-[A-Za-z0-9_\\-]{20,}'),
  keyRule('slack_token', 'xox[abprs]-[A-Za-z0-9\\-]{10,}'),
  keyRule('aws_access_key', '(?:AKIA|ASIA)[A-Z0-9]{16}'),
  keyRule('google_api_key', 'AIza[0-9A-Za-z_\\-]{35}'),
  keyRule('stripe_key', '(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}'),
  keyRule('npm_token', 'npm_[A-Za-z0-9]{36}'),
  keyRule('huggingface_token', 'hf_[A-Za-z0-9]{30,}'),
  keyRule('jwt', 'eyJ[A-Za-z0-9_\\-]{8,}\\.eyJ[A-Za-z0-9_\\-]{8,}\\.[A-Za-z0-9_\\-]{8,}'),
  {
    name: 'aws_secret_access_key', cls: 'api_key',
    re: /(aws_secret_access_key|aws_secret_key|secretAccessKey)(["']?\s*[:=]\s*["']?)([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/gi,
    replace: (m) => `${m[1]}${m[2]}${PLACEHOLDER.api_key}`,
  },
  {
    name: 'bearer_token', cls: 'api_key',
    re: /\b(Bearer\s+)([A-Za-z0-9._~+/=-]{16,})/g,
    replace: (m) => (looksSecret(m[2], false) ? `${m[1]}${PLACEHOLDER.api_key}` : null),
  },
  {
    name: 'secret_assignment', cls: 'password',
    // `password=…`, `api_key: …`, `"token": "…"`: the name stays, a high-entropy value goes.
    // The name prefix is bounded ({1,20}, at most 4 parts) so runs like `a-a-a-…` stay linear.
    re: /\b((?:[A-Za-z0-9]{1,20}[_-]){0,4}(?:password|passwd|pwd|passphrase|secret|api[_-]?key|apikey|access[_-]?key|auth[_-]?token|access[_-]?token|refresh[_-]?token|token|client[_-]?secret|private[_-]?key))(["']?[ \t]*[:=][ \t]*["']?)([^\s"'`,;]+)/gi,
    replace: (m) => {
      const name = m[1].toLowerCase();
      const isPassword = /pass|pwd|secret/.test(name) && !/key|token/.test(name);
      if (!looksSecret(m[3], isPassword)) return null;
      return `${m[1]}${m[2]}${isPassword ? PLACEHOLDER.password : PLACEHOLDER.api_key}`;
    },
  },
];

// The class a secret_assignment replacement belongs to depends on the key name.
function classOfReplacement(rule: Rule, replacement: string): SecretClass {
  if (rule.name === 'secret_assignment') return replacement.endsWith(PLACEHOLDER.password) ? 'password' : 'api_key';
  return rule.cls;
}

// IBAN total lengths by country (ISO 13616 registry, SWIFT IBAN registry release 2024).
const IBAN_LENGTH: Record<string, number> = {
  AD: 24, AE: 23, AL: 28, AT: 20, AZ: 28, BA: 20, BE: 16, BG: 22, BH: 22, BI: 27, BR: 29, BY: 28,
  CH: 21, CR: 22, CY: 28, CZ: 24, DE: 22, DJ: 27, DK: 18, DO: 28, EE: 20, EG: 29, ES: 24, FI: 18,
  FK: 18, FO: 18, FR: 27, GB: 22, GE: 22, GI: 23, GL: 18, GR: 27, GT: 28, HR: 21, HU: 28, IE: 22,
  IL: 23, IQ: 23, IS: 26, IT: 27, JO: 30, KW: 30, KZ: 20, LB: 28, LC: 32, LI: 21, LT: 20, LU: 20,
  LV: 21, LY: 25, MC: 27, MD: 24, ME: 22, MK: 19, MN: 20, MR: 27, MT: 31, MU: 30, NI: 28, NL: 18,
  NO: 15, OM: 23, PK: 24, PL: 28, PS: 29, PT: 25, QA: 29, RO: 24, RS: 22, RU: 33, SA: 24, SC: 31,
  SD: 18, SE: 24, SI: 19, SK: 24, SM: 27, SO: 23, ST: 25, SV: 28, TL: 23, TN: 24, TR: 26, UA: 29,
  VA: 22, VG: 24, XK: 20, YE: 30,
};

/** ISO 7064 mod-97-10 check: a valid IBAN leaves remainder 1. */
export function ibanChecksumValid(compact: string): boolean {
  if (!/^[A-Z]{2}[0-9]{2}[A-Z0-9]+$/.test(compact)) return false;
  const rearranged = compact.slice(4) + compact.slice(0, 4);
  let rem = 0;
  for (const ch of rearranged) {
    const code = ch.charCodeAt(0);
    const v = code <= 57 ? code - 48 : code - 55;
    rem = v >= 10 ? (rem * 100 + v) % 97 : (rem * 10 + v) % 97;
  }
  return rem === 1;
}

/** Luhn check over a digit string. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) { d *= 2; if (d > 9) d -= 9; }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

const IBAN_START = /(?<![A-Za-z0-9])([A-Z]{2})([0-9]{2})/g;
const isUpperAlnum = (c: string) => (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z');
const isWordChar = (c: string | undefined) => c !== undefined && /[A-Za-z0-9_]/.test(c);

function maskIbans(text: string, hit: (cls: SecretClass) => void): string {
  IBAN_START.lastIndex = 0;
  let out = '';
  let last = 0;
  let m: RegExpExecArray | null;
  while ((m = IBAN_START.exec(text))) {
    const want = IBAN_LENGTH[m[1]];
    if (!want) continue;
    // Collect `want` characters, allowing single spaces between groups (printed form).
    let compact = m[1] + m[2];
    let i = m.index + 4;
    while (compact.length < want && i < text.length) {
      const c = text[i];
      if (isUpperAlnum(c)) { compact += c; i++; continue; }
      if (c === ' ' && i + 1 < text.length && isUpperAlnum(text[i + 1])) { i++; continue; }
      break;
    }
    if (compact.length !== want || isWordChar(text[i])) continue;
    if (!ibanChecksumValid(compact)) continue;
    out += text.slice(last, m.index) + PLACEHOLDER.iban;
    last = i;
    IBAN_START.lastIndex = i;
    hit('iban');
  }
  return last === 0 ? text : out + text.slice(last);
}

// 13–19 digits with optional single space/dash separators, not part of a longer token,
// not after `+` (phone numbers) or `.` / `-` (versions, UUID pieces).
const CARD_CANDIDATE = /(?<![A-Za-z0-9_.+\-/:])[0-9](?:[ -]?[0-9]){12,18}(?![A-Za-z0-9_]|[.\-/:][0-9])/g;

function plausibleCardGrouping(raw: string): boolean {
  const groups = raw.split(/[ -]/);
  if (groups.length === 1) return true;
  if (/ /.test(raw) && /-/.test(raw)) return false;
  const lens = groups.map((g) => g.length).join('-');
  // 4-4-4-4(-1..3), 4-6-5 (Amex), 4-6-4 (Diners), 4-4-4-1..4 (13–16 digit cards).
  return /^4-4-4-[1-4]$|^4-4-4-4(-[1-3])?$|^4-6-[45]$|^4-4-4-4-4$/.test(lens);
}

function maskCards(text: string, hit: (cls: SecretClass) => void): string {
  return text.replace(CARD_CANDIDATE, (raw) => {
    const digits = raw.replace(/[ -]/g, '');
    if (digits.length < 13 || digits.length > 19) return raw;
    // Issuer ranges start with 2–6 (Mastercard 2-series, Amex/Diners/JCB 3, Visa 4, MC 5, Discover/UnionPay 6).
    if (!/^[2-6]/.test(digits)) return raw;
    if (/^(\d)\1+$/.test(digits)) return raw;
    if (!plausibleCardGrouping(raw)) return raw;
    if (!luhnValid(digits)) return raw;
    hit('card');
    return PLACEHOLDER.card;
  });
}

/** Replaces every detected secret by its class placeholder. Throws only on a bug; see maskOrWithhold. */
export function maskSecrets(text: string): MaskResult {
  if (typeof text !== 'string') throw new TypeError('maskSecrets expects a string');
  const classes: SecretClass[] = [];
  let count = 0;
  const hit = (cls: SecretClass) => {
    count++;
    if (!classes.includes(cls)) classes.push(cls);
  };
  let out = text;
  for (const rule of RULES) {
    rule.re.lastIndex = 0;
    if (!rule.re.test(out)) continue;
    rule.re.lastIndex = 0;
    out = out.replace(rule.re, (...args: unknown[]) => {
      // Rebuild an exec-like array from replace()'s arguments (match, groups..., offset, input).
      const idx = args.findIndex((a) => typeof a === 'number');
      const m = args.slice(0, idx) as unknown as RegExpExecArray;
      const r = rule.replace(m);
      if (r === null) return m[0];
      hit(classOfReplacement(rule, r));
      return r;
    });
  }
  out = maskIbans(out, hit);
  out = maskCards(out, hit);
  return { text: out, classes, count };
}

/** Detection only (tags `contains-secrets` on import). */
export function detectSecrets(text: string): { found: boolean; classes: SecretClass[] } {
  const r = maskSecrets(text);
  return { found: r.count > 0, classes: r.classes };
}

export type MaskOrWithhold = { ok: true; text: string; classes: SecretClass[]; count: number } | { ok: false; reason: string };

/** The only masking entry point for outbound text: a failed scan withholds, never passes text through. */
export function maskOrWithhold(text: unknown): MaskOrWithhold {
  if (typeof text !== 'string') return { ok: false, reason: 'not_text' };
  try {
    const r = maskSecrets(text);
    return { ok: true, text: r.text, classes: r.classes, count: r.count };
  } catch {
    return { ok: false, reason: 'mask_failed' };
  }
}
