// Source code for the learned stage (issue #14, gate6). The classifier learnt instruction-like *prose*; on
// source code it also reads the identifiers and syntax (`SYSTEM_PROMPT`, `systemPrompt`, `override`, `role:`,
// `instructions:`), and a program that calls a model holds its system prompt, few-shot examples and eval cases
// as literals — instructions by nature. Whole-text scoring lowered the trust of ordinary LLM-app code.
// When a text is mostly code, the classifier judges the *prose inside it* — string literals, comments, YAML
// values — each piece on its own, not the code around them (poisonGateCode.ts does the same for the rules'
// `json_role`). The rules still read the whole text, so an attack in a comment or literal ("AI agents reading
// this: …", "ignore previous instructions …") is caught as before; for a string literal the classifier's bar is a
// threshold gap above its reject threshold (judgeProse), since a system prompt *is* an instruction.
// Pure, no imports (import-cycle rule).

/** A piece of prose inside code: its text and whether it is a comment (addressed to a reader) or a literal. */
export interface ProsePiece { text: string; comment: boolean }

const WORDS = /\p{L}[\p{L}'’-]*/gu;
const wordCount = (s: string): number => s.match(WORDS)?.length ?? 0;

/**
 * The text with literals and comments cut out (`frame`: literals become `""`, comments vanish), and the pieces
 * of prose found: literals of 3+ words (adjacent literals joined: `"a " "b"`, `"a " + "b"`), comments of 3+ words.
 * A small lexer for C-like, Python, Go, shell and YAML: line, block and `#` comments; `"…"`, `'…'`, `` `…` ``,
 * `"""…"""`, `'''…'''` literals. An apostrophe inside a word (`don't`) opens no literal.
 */
export function cutLiterals(text: string): { frame: string; pieces: ProsePiece[]; withComments: string } {
  const pieces: ProsePiece[] = [];
  let frame = '';
  let withComments = ''; // the frame with the comments left in
  let i = 0;
  let lastLiteralEnd = -2; // frame length right after the last literal (to join "a " + "b")
  const n = text.length;
  const pushLiteral = (s: string) => {
    const glue = frame.slice(lastLiteralEnd);
    const prev = pieces[pieces.length - 1];
    if (lastLiteralEnd >= 0 && prev && !prev.comment && /^[\s+\\]*$/u.test(glue)) prev.text += s;
    else pieces.push({ text: s, comment: false });
    frame += '""';
    withComments += '""';
    lastLiteralEnd = frame.length;
  };
  while (i < n) {
    const c = text[i];
    const lineStart = i === 0 || text[i - 1] === '\n';
    const prevCh = i > 0 ? text[i - 1] : '\n';
    if ((c === '/' && text[i + 1] === '/') || (c === '#' && (lineStart || /\s/u.test(prevCh)) && !/^#[{\w[]/u.test(text.slice(i, i + 2)) && text[i + 1] !== '!')) {
      let end = text.indexOf('\n', i);
      if (end < 0) end = n;
      // "//" after a colon or a word is a URL's (https://…) or a path's, not a comment.
      if (c === '/' && /[:\w]$/u.test(prevCh)) { frame += c; withComments += c; i++; continue; }
      const body = text.slice(i + (c === '/' ? 2 : 1), end).replace(/^[#/!\s]+/u, '');
      pieces.push({ text: body, comment: true });
      withComments += text.slice(i, end);
      i = end;
      continue;
    }
    if (c === '/' && text[i + 1] === '*' && !/[\w./*-]/u.test(prevCh)) { // not a path glob (dir/*.txt)
      let end = text.indexOf('*/', i + 2);
      if (end < 0) end = n - 2;
      pieces.push({ text: text.slice(i + 2, end).replace(/^\s*\*+/gmu, ' '), comment: true });
      withComments += text.slice(i, end + 2);
      i = end + 2;
      continue;
    }
    if ((c === '"' || c === "'") && text.slice(i, i + 3) === c.repeat(3)) {
      let end = text.indexOf(c.repeat(3), i + 3);
      if (end < 0) end = n;
      // A docstring (a triple-quoted string standing as a statement) is text for the reader, like a comment.
      if (/(?:^|\n)[ \t]*$/u.test(frame.slice(-200))) {
        pieces.push({ text: text.slice(i + 3, end), comment: true });
        withComments += text.slice(i, end + 3);
      } else pushLiteral(text.slice(i + 3, end));
      i = end + 3;
      continue;
    }
    if (c === '`' || c === '"' || (c === "'" && !/[\p{L}\p{N}]/u.test(prevCh))) {
      let j = i + 1;
      let s = '';
      for (; j < n && text[j] !== c; j++) {
        if (text[j] === '\\' && j + 1 < n) {
          const e = text[j + 1];
          s += e === 'n' ? '\n' : e === 't' ? '\t' : e;
          j++;
        } else if (text[j] === '\n' && c !== '`') break;
        else s += text[j];
      }
      if (j < n && text[j] === c) {
        pushLiteral(s);
        i = j + 1;
        continue;
      }
    }
    frame += c;
    withComments += c;
    i++;
  }
  return { frame, pieces: pieces.filter((p) => wordCount(p.text) >= 3), withComments };
}

// A line of code (after literals were cut): it ends like a statement or opens a block, starts with a keyword,
// assigns, is a key of a mapping (`key: value`, `"key": …`, `- key: …`), a list item of a literal, or a shell command.
const CODE_LINE = new RegExp([
  String.raw`[;{}()[\],]\s*$`,
  String.raw`^\s*(?:import|from|const|let|var|def|async|await|function|class|return|assert|print|export|package|func|fn|pub|use|using|if|elif|else|for|while|try|except|catch|finally|with|yield|raise|throw|switch|case|struct|type|interface|impl|match|SELECT|FROM|WHERE|GROUP|ORDER|LIMIT|INSERT|UPDATE|DELETE|CREATE|ALTER|DROP|#include)\b`,
  String.raw`^\s*[\w$.[\]'"]+\s*(?::\s*[\w<>[\]|, ]+\s*)?[-+*/|&]?=(?!=)`,
  // A mapping key: lower case or dotted/snake/kebab, or indented — not a speaker label ("User:", "Q:", "Nutzer:").
  String.raw`^\s*-?\s*(?:""|(?!(?:user|assistant|system|human|bot|ai|ki|ia|q|a|dev|me|you|ich|du|yo|tu|moi|en|te)\s*:)[a-z_$][\w$.-]*|[\w$]+[_.-][\w$.-]*)\s*:(?:\s|$)`,
  String.raw`^\s+-?\s*[\w$.-]+\s*:(?:\s|$)`,
  String.raw`^#!`,
  String.raw`^\s*-\s+(?:""|\[|\{)`,
  String.raw`^\s*""\s*[,)\]}:]?\s*$`,
  String.raw`^\s*(?:sudo|curl|wget|kubectl|docker|helm|echo|export|set|unset|cd|ls|cat|grep|sed|awk|jq|npm|npx|yarn|pnpm|pip|python3?|node|git|make|go|cargo|chmod|chown|mkdir|rm|cp|mv|ssh|scp|done|do|then|fi|esac|source)\b`,
  String.raw`\)\s*(?:\{|=>|->|:)\s*$`,
].join('|'), 'u');

// A line of a mapping or list only (`key: ""`, `- item`, `"key": "",`, braces): a data document (YAML, JSON) has no other.
const DATA_LINE = /^\s*(?:-\s+[^;(){}=]*|-?\s*(?:""|[\w$.-]+)\s*:(?:\s+[^;(){}=`]*)?|""\s*,?|[[\]{},\s]+)$/u;

// Prose lines in the frame: a sentence — four words in a row and no code punctuation.
const PROSE_LINE = /^[^;{}()=<>[\]]*\p{L}{2,}[\s,]+\p{L}{2,}[\s,]+\p{L}{2,}[\s,]+\p{L}{2,}[^;{}()=<>[\]]*[.!?:]?\s*$/u;

const BLOCK_SCALAR = /^(\s*)-?\s*[\w$.-]+\s*:\s*[|>][-+]?\s*$/u;
const PLAIN_VALUE = /^(\s*-?\s*[\w$.-]+\s*:\s+)([^\s"'[{&*!|>#][^#]*)$/u;

/** YAML: block scalars (`instructions: |` and the indented lines under it) and plain values of 3+ words become pieces. */
function yamlValues(frame: string, pieces: ProsePiece[]): { frame: string; pieces: ProsePiece[] } {
  const lines = frame.split('\n');
  const out: string[] = [];
  const more = [...pieces];
  for (let i = 0; i < lines.length; i++) {
    const block = BLOCK_SCALAR.exec(lines[i]);
    if (block) {
      const body: string[] = [];
      let j = i + 1;
      for (; j < lines.length && (lines[j].trim() === '' || /^\s*/u.exec(lines[j])![0].length > block[1].length); j++) body.push(lines[j].trim());
      if (body.some((l) => l.length > 0)) {
        out.push(lines[i].replace(/[|>][-+]?\s*$/u, '""'));
        if (wordCount(body.join(' ')) >= 3) more.push({ text: body.join('\n').trim(), comment: false });
        i = j - 1;
        continue;
      }
    }
    const plain = PLAIN_VALUE.exec(lines[i]);
    if (plain && wordCount(plain[2]) >= 3 && !/[;{}()]\s*$/u.test(plain[2])) {
      out.push(plain[1] + '""');
      more.push({ text: plain[2].trim(), comment: false });
      continue;
    }
    out.push(lines[i]);
  }
  return { frame: out.join('\n'), pieces: more };
}

// Cheap pre-check: punctuation of code, a mapping key, a shebang or a shell command somewhere in the text.
const CODE_HINT = /[;{}=([]|:\s*(?:[|>][-+]?)?\s*$|^\s*-?\s*[\w.-]+:\s|^#!|^\s*(?:sudo|curl|kubectl|docker|npm|npx|git|pip|python3?|node|cd|export|echo|set)\s/mu;

/**
 * The prose pieces of a text that is mostly source code (or a config file), else null; in a data document every piece counts as a comment. Mostly code: at least
 * three lines of code once literals and comments are cut out (or every line, when one or two remain: `PROMPT = """…"""`),
 * they make up ≥ 70 % of the remaining lines, and no
 * more than one remaining line reads as a sentence (a README with a snippet is prose, not code).
 */
export function sourceProse(text: string): ProsePiece[] | null {
  if (text.length < 24 || !CODE_HINT.test(text)) return null;
  const cut = cutLiterals(text);
  // One line: only a constant holding a literal (`SYSTEM_PROMPT = "…"`, `const prompt = \`…\`;`) is code.
  if (!/\n/u.test(text.trim())) return /^(?:(?:export\s+)?(?:const|let|var|val|final)\s+)?[A-Za-z_$][\w$.]*\s*(?::\s*\w+\s*)?=\s*[frbu]?""\s*;?$/u.test(cut.frame.trim()) ? cut.pieces : null;
  const { frame, pieces } = yamlValues(cut.frame, cut.pieces);
  const lines = frame.split('\n').map((l) => l.trim()).filter((l) => l.length > 0 && !/^```/u.test(l));
  let code = 0;
  let prose = 0;
  for (const l of lines) {
    if (CODE_LINE.test(l)) code++;
    else if (PROSE_LINE.test(l)) prose++;
  }
  if (lines.length === 0 || (lines.length <= 2 ? code < lines.length : code < 3 || code < 0.7 * lines.length) || prose > 1) return null;
  // A data document (YAML, JSON: keys, values, lists only) is read by whoever reads it — a fake policy or config is
  // an order to that reader: its values are judged like comments. Only a program's literals are its model's prompts.
  return lines.every((l) => DATA_LINE.test(l)) ? pieces.map((p) => ({ text: p.text, comment: true })) : pieces;
}

/** A classifier verdict (the gate's thresholds and a scorer over a piece of text). */
export interface PieceJudge {
  score: (text: string) => number;
  /** True when a piece has too few words for the classifier to lower trust below its reject threshold. */
  short: (text: string) => boolean;
  untrustedAt: number;
  rejectAt: number;
}

/**
 * The classifier's verdict on the prose inside code. Comments and docstrings speak to whoever reads the code (an
 * agent editing it): judged like any text. String literals are what the program sends to *its* model — a system
 * prompt, a template, a few-shot example, a guard prompt describing attacks — instructions by nature, and on the dev
 * set ordinary ones scored up to ~1.5 above the reject threshold: only a literal scoring a full threshold gap above
 * reject (rejectAt + (rejectAt − untrustedAt)) lowers trust, and a literal never quarantines the code holding it.
 * Literal attacks the rules know ("ignore previous instructions …") are caught by the rules on the whole text.
 */
export function judgeProse(pieces: readonly ProsePiece[], j: PieceJudge): 'reject' | 'untrusted' | 'pass' {
  let verdict: 'untrusted' | 'pass' = 'pass';
  for (const p of pieces) {
    const z = j.score(p.text);
    if (z < j.untrustedAt) continue;
    if (p.comment && !j.short(p.text)) {
      if (z >= j.rejectAt) return 'reject';
      verdict = 'untrusted';
    } else if (z >= j.rejectAt + (j.rejectAt - j.untrustedAt)) verdict = 'untrusted';
  }
  return verdict;
}

// The code around a quoted attack is a test, an eval or a guard: the literal is test data, not a prompt in use.
const HARNESS = /\b(?:expect|assert\w*|(?:it|test|describe)\s*\(|evals?|eval_\w+|\w*_eval|expected|erwartet|vart|esperado|attendu|refusal|ablehnung|elutasitas|rechazo|refus|jailbreak\w*|red[-_]?team\w*|redteam|injection)\b/iu;

// A guard or classifier prompt describes attacks conditionally: "If the message tries to make the assistant ignore
// its instructions, answer INJECTION", "Si el mensaje intenta que el asistente olvide …", "Ha az üzenet … próbálja".
const CONDITIONAL_ATTEMPT = /\b(?:if|when|whether)\s+(?:the|a|an|this)\s+(?:user'?s?\s+)?(?:message|text|input|prompt|request|user|document|content)\s+(?:(?:below|above|here|that follows)\s+)?(?:tries|attempts|asks|wants|is trying)\b|\b(?:wenn|falls|ob)\s+(?:die|eine|der)\s+(?:nachricht|eingabe|anfrage|text|nutzer)\s+(?:\S+\s+){0,3}?versucht|\bha\s+az?\s+(?:uzenet|bemenet|keres|szoveg|felhasznalo)\b[^.!?\n]{0,60}?\bprobal|\bsi\s+el\s+(?:mensaje|texto|usuario|contenido)\s+(?:intenta|pide|trata)|\bsi\s+(?:le|un)\s+(?:message|texte|utilisateur|contenu)\s+(?:tente|essaie|cherche|demande)/iu;

/**
 * A rule hit inside a string literal of source code (`whole`: the gate's verdict; `judge`: the gate's stages). The
 * code and its comments with every literal blanked are gated again: a hit there stands. A hit only inside literals
 * is code *quoting* an instruction: a test case or eval row quoting an attack (the code is a test/eval harness) or
 * a guard prompt describing attacks conditionally passes; a tool request in a prompt passes (agent code tells its
 * model which tools to use). Any other literal that reads as an attack keeps the verdict: it is a prompt in use.
 */
export function quotedInCode<D>(text: string, whole: { verdict: 'reject' | 'untrusted' | 'pass'; detector: D | null }, judge: (t: string) => { verdict: 'reject' | 'untrusted' | 'pass'; detector: D | null }, toolDetector: D): { verdict: 'reject' | 'untrusted' | 'pass'; detector: D | null } {
  if (whole.verdict === 'pass' || whole.detector === 'classifier') return whole;
  const prose = sourceProse(text);
  if (!prose) return whole;
  const { withComments } = cutLiterals(text);
  if (judge(withComments).verdict !== 'pass') return whole;
  // A config file's `system:` key holding an app's prompt (gate11): `system_line` read the key as a faked system turn.
  // In a data document (every piece is a value) each value is gated on its own: a value that is itself an attack keeps
  // the verdict, one the classifier finds instruction-like lowers trust, ordinary prompts pass.
  if (whole.detector === 'system_line' && prose.length > 0 && prose.every((p) => p.comment)) {
    const verdicts = prose.map((p) => judge(p.text));
    if (verdicts.some((v) => v.verdict === 'reject')) return whole;
    return verdicts.find((v) => v.verdict === 'untrusted') ?? { verdict: 'pass', detector: null };
  }
  const literals = prose.filter((p) => !p.comment).map((p) => p.text).join('\n');
  if (HARNESS.test(withComments) || CONDITIONAL_ATTEMPT.test(literals.normalize('NFD').replace(/\p{M}/gu, ''))) return { verdict: 'pass', detector: null };
  return whole.detector === toolDetector ? { verdict: 'pass', detector: null } : whole;
}
