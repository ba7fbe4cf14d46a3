// The recall query (SPEC R-RECALL-1), built without a model call from the conversation's own text.
// Order: current message (or the last user message when empty), previous different user message,
// title (placeholders ignored), task; ≤ 1,200 chars; a part already contained earlier is skipped.

export interface QueryInput {
  message: string;
  /** Earlier user messages, oldest first (the last one may be the current message). */
  previousUserMessages?: readonly string[];
  title?: string;
  task?: string;
}

export const QUERY_MAX_CHARS = 1200;
const PREVIOUS_MAX_CHARS = 400;
const TITLE_MAX_CHARS = 120;
const TASK_MAX_CHARS = 400;

/** Titles chat UIs give a conversation before it has one. */
const PLACEHOLDER_TITLES = new Set(['new chat', 'untitled', 'new conversation', 'chat', 'conversation', 'neuer chat', 'új csevegés', 'nuevo chat', 'nouvelle discussion', 'nouveau chat']);

export function buildQuery(input: QueryInput): string {
  const prev = (input.previousUserMessages ?? []).map(clean).filter(Boolean);
  let current = clean(input.message ?? '');
  let prevIdx = prev.length - 1;
  if (!current) {
    current = prev[prevIdx] ?? '';
    prevIdx--;
  }
  // The previous *different* user message: skip repeats of the current one.
  while (prevIdx >= 0 && prev[prevIdx] === current) prevIdx--;
  const title = clean(input.title ?? '');
  const parts = [
    current,
    prevIdx >= 0 ? cut(prev[prevIdx]!, PREVIOUS_MAX_CHARS) : '',
    title && !PLACEHOLDER_TITLES.has(title.toLowerCase()) && !/^untitled[-\s]?\d*$/i.test(title) ? cut(title, TITLE_MAX_CHARS) : '',
    cut(clean(input.task ?? ''), TASK_MAX_CHARS),
  ];
  const kept: string[] = [];
  for (const p of parts) {
    if (!p) continue;
    const lower = p.toLowerCase();
    if (kept.some((k) => k.toLowerCase().includes(lower))) continue;
    kept.push(p);
  }
  return cut(kept.join('\n'), QUERY_MAX_CHARS);
}

function clean(s: string): string {
  return typeof s === 'string' ? s.replace(/\s+/g, ' ').trim() : '';
}

/** At most `max` chars, cut at a word boundary when one is near the end. */
function cut(s: string, max: number): string {
  if (s.length <= max) return s;
  const head = s.slice(0, max);
  const space = head.lastIndexOf(' ');
  return (space > max * 0.8 ? head.slice(0, space) : head).trimEnd();
}
