// The text of a project note the poison gate judges: summary, body and the frontmatter's values — an instruction
// can hide in any key — but not the frontmatter's JSON syntax (braces and quotes around every short note read as a
// payload to the classifier), and not the values of the note format's own keys.
import type { ParsedNote } from '../vault/noteParser';

/**
 * Top-level frontmatter keys whose values are the note format's own vocabulary (a kind, tags, ids, flags, dates),
 * not prose: left out of the gated text (`summary` is gated as the summary).
 */
export const STRUCTURAL_KEYS: ReadonlySet<string> = new Set(['kind', 'summary', 'tags', 'project', 'projectType', 'project-type', 'project_type', 'trust', 'pinned', 'origin', 'created', 'updated', 'valid_from', 'invalidated_at', 'aliases']);

/** Every string (and number) value in a parsed frontmatter, depth first, keys left out; `skip`: top-level keys to leave out. */
export function frontmatterValues(v: unknown, skip: ReadonlySet<string> = new Set(), out: string[] = [], depth = 0): string[] {
  if (depth > 8) return out;
  if (typeof v === 'string') out.push(v);
  else if (typeof v === 'number' || typeof v === 'boolean') out.push(String(v));
  else if (Array.isArray(v)) for (const x of v) frontmatterValues(x, skip, out, depth + 1);
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) if (depth > 0 || !skip.has(k)) frontmatterValues(x, skip, out, depth + 1);
  }
  return out;
}

/** What the gate judges for a project note. */
export function gatedText(parsed: ParsedNote): string {
  return [parsed.summary, parsed.body, ...frontmatterValues(parsed.frontmatter, STRUCTURAL_KEYS)].join('\n');
}
