// Working memory (SPEC R-MEM-1, 24 h TTL; issue #13 point 2): one block per conversation, `wk:<conversation>`,
// updated after every saved turn, deterministically (no model): the task (from the title / first message), the
// decisions and open questions of the last turns, and the files they named. Recalled first for the same
// conversation (and a resumed one within the TTL); archived by consolidation once expired.
// Pure functions here; the engine stores the block (MemoryEngine.updateWorking).

/** What the block keeps between turns (item.meta.working). */
export interface WorkingState {
  task: string;
  decisions: string[];
  questions: string[];
  files: string[];
  turns: number;
}

export interface WorkingTurn {
  title?: string;
  user: string;
  assistant: string;
}

const MAX_DECISIONS = 5;
const MAX_QUESTIONS = 3;
const MAX_FILES = 8;
const LINE_MAX = 160;
const TASK_MAX = 160;

// A decision: a sentence that commits to something (English and German phrasings).
const DECISION = /\b(?:we(?:'ll| will| decided| agreed| chose| go with)|let's|lets|decided|decision|agreed|going with|go with|we use|use [\w.-]+ (?:for|instead)|switch(?:ed)? to|from now on|wir (?:nehmen|machen|verwenden)|entschieden)\b/i;
// A file or path: a/b/c.ext or name.ext with a known source / doc extension.
const FILE = /(?<![\w/.-])((?:[\w.-]+\/)*[\w-][\w.-]*\.(?:ts|tsx|js|jsx|mjs|cjs|json|md|py|rs|go|java|kt|cs|cpp|c|h|hpp|rb|php|swift|yml|yaml|toml|sql|sh|css|scss|html|vue|svelte))(?![\w/-])/g;

function oneLine(s: string, max: number): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1).trimEnd()}…` : flat;
}

/** Sentences outside code fences and quoted lines (a quote is someone else's text, not this turn's). */
function sentences(text: string): string[] {
  const out: string[] = [];
  let fence = false;
  for (const line of text.split('\n')) {
    if (/^\s{0,3}(```|~~~)/.test(line)) { fence = !fence; continue; }
    if (fence || /^\s*>/.test(line)) continue;
    for (const s of line.split(/(?<=[.!?])\s+(?=[A-ZÄÖÜ"'(])/)) if (s.trim()) out.push(s.trim().replace(/^[-*•]\s+|^\d+[.)]\s+/, ''));
  }
  return out;
}

function pushCapped(list: string[], items: readonly string[], cap: number): string[] {
  const out = list.filter((x) => !items.includes(x));
  out.push(...items);
  return out.slice(-cap);
}

/** The state after one more turn (the previous state, or none for a conversation's first turn). */
export function nextWorkingState(prev: WorkingState | null, turn: WorkingTurn): WorkingState {
  const task = prev?.task || oneLine(turn.title?.trim() || turn.user, TASK_MAX);
  const decisions = sentences(`${turn.user}\n${turn.assistant}`).filter((s) => DECISION.test(s) && !s.endsWith('?')).map((s) => oneLine(s, LINE_MAX));
  const questions = sentences(turn.user).filter((s) => s.endsWith('?')).map((s) => oneLine(s, LINE_MAX));
  const prose = sentences(`${turn.user}\n${turn.assistant}`).join('\n');
  const files = [...new Set([...prose.matchAll(FILE)].map((m) => m[1]!))].filter((f) => !/^\d+(\.\d+)+$/.test(f));
  return {
    task,
    decisions: pushCapped(prev?.decisions ?? [], decisions, MAX_DECISIONS),
    // Open questions are the latest turn's; an earlier one answered since drops out as turns go on.
    questions: pushCapped(prev?.questions ?? [], questions, MAX_QUESTIONS),
    files: pushCapped(prev?.files ?? [], files, MAX_FILES),
    turns: (prev?.turns ?? 0) + 1,
  };
}

/** The block's text (what recall shows): task, decisions, open questions, files — empty sections left out. */
export function workingText(s: WorkingState): string {
  const lines = [`Task: ${s.task}`];
  if (s.decisions.length) lines.push('Decisions:', ...s.decisions.map((d) => `- ${d}`));
  if (s.questions.length) lines.push('Open questions:', ...s.questions.map((q) => `- ${q}`));
  if (s.files.length) lines.push(`Files: ${s.files.join(', ')}`);
  return lines.join('\n');
}

/** A state read back from item.meta.working (anything malformed starts afresh). */
export function workingStateOf(meta: Record<string, unknown> | undefined): WorkingState | null {
  const w = meta?.working as Partial<WorkingState> | undefined;
  if (!w || typeof w.task !== 'string') return null;
  const strings = (x: unknown) => (Array.isArray(x) ? x.filter((v): v is string => typeof v === 'string') : []);
  return { task: w.task, decisions: strings(w.decisions), questions: strings(w.questions), files: strings(w.files), turns: typeof w.turns === 'number' ? w.turns : 0 };
}

export function workingId(conversation: string): string {
  return `wk:${conversation}`;
}
