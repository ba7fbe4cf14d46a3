// Frontmatter and secret diagnostics of one vault note, from the engine's own parser (parseNote) and
// secret detector (detectSecrets), placed on the line that causes them. Pure: text in, plain ranges out.
// Invariant: a message never quotes a detected secret; it names its class only.
import { NOTE_KINDS, TRUST_LEVELS } from '../engine/types';
import { parseNote, SECRETS_TAG, type NoteProblemCode } from '../engine/vault/noteParser';
import { detectSecrets } from '../engine/write/mask';

export const DIAGNOSTIC_SOURCE = 'memory';

export type NoteDiagnosticCode = NoteProblemCode | 'broken_link' | 'likely_secret';

/** LSP severities (1 error, 2 warning, 3 information), kept numeric so this file needs no LSP import. */
export type Severity = 1 | 2 | 3;

export interface LineDiagnostic {
  /** 0-based line; the range covers [startChar, endChar) of it. */
  line: number;
  startChar: number;
  endChar: number;
  severity: Severity;
  code: NoteDiagnosticCode;
  message: string;
}

/** Frontmatter keys a problem is about (the line a diagnostic points at). */
const PROBLEM_KEYS: Partial<Record<NoteProblemCode, string[]>> = {
  unknown_kind: ['kind'],
  unknown_trust: ['trust'],
  trust_raise_ignored: ['trust'],
};

function lineSpan(lines: readonly string[], i: number): { line: number; startChar: number; endChar: number } {
  const text = (lines[i] ?? '').replace(/\r$/, '');
  const lead = text.length - text.trimStart().length;
  return { line: i, startChar: lead, endChar: Math.max(text.length, lead + 1) };
}

/**
 * Frontmatter lines: 1..close-1 when the note opens with a closed `---` block (same rule as
 * noteParser.splitFrontmatter), else undefined.
 */
function frontmatterLines(lines: readonly string[]): { open: number; close: number } | undefined {
  if (!/^(\uFEFF)?---[ \t]*\r?$/.test(lines[0] ?? '')) return undefined;
  for (let i = 1; i < lines.length; i++) if (/^---[ \t]*\r?$/.test(lines[i])) return { open: 0, close: i };
  return undefined;
}

function keyLine(lines: readonly string[], fm: { open: number; close: number }, keys: readonly string[]): number | undefined {
  for (let i = fm.open + 1; i < fm.close; i++) {
    const m = /^([A-Za-z_][\w-]*)[ \t]*:/.exec(lines[i]);
    if (m && keys.includes(m[1])) return i;
  }
  return undefined;
}

const SEVERITY: Partial<Record<NoteProblemCode, Severity>> = { malformed_frontmatter: 1, invalid_utf8: 1 };

/** Diagnostics of the frontmatter (parseNote problems) and of likely secrets in a note not tagged `contains-secrets`. */
export function noteDiagnostics(relPath: string, text: string): LineDiagnostic[] {
  const note = parseNote(relPath, text);
  const lines = text.split('\n');
  const fm = frontmatterLines(lines);
  const out: LineDiagnostic[] = [];
  for (const p of note.problems) {
    let line = 0;
    if (fm) {
      if (p.code === 'malformed_frontmatter') {
        // parseNote reports js-yaml's mark as a 1-based file line ("line N"); else the opening `---`.
        const n = /\(line (\d+)\)/.exec(p.message);
        line = n ? Math.min(Math.max(Number(n[1]) - 1, fm.open), fm.close) : fm.open;
      } else {
        const keys = PROBLEM_KEYS[p.code] ?? (p.code === 'bad_field' ? [p.message.split(' ')[0]] : []);
        line = keyLine(lines, fm, keys) ?? fm.open;
      }
    }
    out.push({ ...lineSpan(lines, line), severity: SEVERITY[p.code] ?? 2, code: p.code, message: problemMessage(p.code, p.message) });
  }
  if (!note.skipped && !note.containsSecrets) out.push(...secretDiagnostics(lines, text));
  return out;
}

function problemMessage(code: NoteProblemCode, message: string): string {
  switch (code) {
    case 'unknown_kind': return `Unknown kind (${message.replace(/^unknown kind; /, '')}). Known kinds: ${NOTE_KINDS.join(', ')}.`;
    case 'unknown_trust': return `Unknown trust (${message.replace(/^unknown trust; /, '')}). Levels: ${TRUST_LEVELS.join(', ')}.`;
    case 'trust_raise_ignored': return `Frontmatter trust can only lower a note's level: ${message.replace(/^trust can only be lowered; /, '')}.`;
    case 'malformed_frontmatter': return `Malformed frontmatter: ${message}. The note is indexed without it.`;
    default: return message;
  }
}

/** Lines holding a likely secret (one diagnostic each; a multi-line key gets one on its first changed line). */
function secretDiagnostics(lines: readonly string[], text: string): LineDiagnostic[] {
  const whole = detectSecrets(text);
  if (!whole.found) return [];
  const hint = `Remove it, or tag the note \`${SECRETS_TAG}\` so recall leaves it out.`;
  const out: LineDiagnostic[] = [];
  for (let i = 0; i < lines.length; i++) {
    const r = detectSecrets(lines[i]);
    if (r.found) out.push({ ...lineSpan(lines, i), severity: 2, code: 'likely_secret', message: `Likely secret (${r.classes.join(', ')}). ${hint}` });
  }
  if (out.length === 0) {
    // Only the whole text matches (e.g. a PEM block across lines): point at its first line.
    const first = lines.findIndex((l) => /-----BEGIN /.test(l));
    out.push({ ...lineSpan(lines, Math.max(first, 0)), severity: 2, code: 'likely_secret', message: `Likely secret (${whole.classes.join(', ')}). ${hint}` });
  }
  return out;
}
