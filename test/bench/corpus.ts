// Benchmark corpora of distinct memory texts at any size. The first pass is the LoCoMo turns as they
// are; every later copy of a turn is varied for real, deterministically (seeded by its position): the
// speaker becomes another person, about a quarter of the content words are replaced by other words of
// the corpus vocabulary (so term statistics stay those of conversation text), and a concrete detail
// (a date, a ticket, a version, a place, an amount) is appended. `distinct` in a bench's output counts
// the texts actually produced, so a claim of "N distinct texts" is checked, not assumed.
import { readFileSync } from 'node:fs';
import { prng } from '../../src/engine/prng';

interface Sample { sessions: { turns: { speaker: string; text: string }[] }[]; qa: { question: string }[] }

export interface Corpus {
  /** The base turns (`[speaker] text`). */
  base: { speaker: string; text: string }[];
  questions: string[];
  /** The i-th text of the stream (i ≥ 0): base turn i % base.length, varied when i ≥ base.length. */
  text(i: number): string;
}

const NAMES = [
  'Avery', 'Jordan', 'Priya', 'Mateo', 'Hana', 'Oluwaseun', 'Lena', 'Kofi', 'Ines', 'Tomasz', 'Yuki', 'Farah', 'Diego', 'Mei', 'Sven',
  'Amara', 'Ravi', 'Chloe', 'Nikolai', 'Zainab', 'Elif', 'Bruno', 'Sofia', 'Kenji', 'Aisha', 'Pavel', 'Lucia', 'Omar', 'Greta', 'Tariq',
];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const PLACES = ['Lisbon', 'the library on Elm Street', 'the climbing gym', 'Osaka', 'the farmers market', 'the office in Berlin', 'the lake house', 'Nairobi', 'the community center', 'Montreal'];
const DETAILS: ((r: () => number) => string)[] = [
  (r) => `That was on ${1 + Math.floor(r() * 28)} ${MONTHS[Math.floor(r() * 12)]} ${2019 + Math.floor(r() * 7)}.`,
  (r) => `I filed it as ticket ${['MEM', 'OPS', 'WEB', 'APP'][Math.floor(r() * 4)]}-${1000 + Math.floor(r() * 90_000)}.`,
  (r) => `We moved to version ${1 + Math.floor(r() * 9)}.${Math.floor(r() * 30)}.${Math.floor(r() * 50)} afterwards.`,
  (r) => `It happened near ${PLACES[Math.floor(r() * PLACES.length)]}.`,
  (r) => `It cost about ${5 + Math.floor(r() * 995)} dollars in the end.`,
  (r) => `${NAMES[Math.floor(r() * NAMES.length)]} was there too, around ${1 + Math.floor(r() * 12)} pm.`,
];


export function loadCorpus(file: string): Corpus {
  const data = JSON.parse(readFileSync(file, 'utf8')) as Sample[];
  const base: { speaker: string; text: string }[] = [];
  const questions: string[] = [];
  for (const s of data) {
    for (const ses of s.sessions) for (const t of ses.turns) base.push({ speaker: t.speaker, text: t.text });
    for (const q of s.qa) questions.push(q.question);
  }
  const vocab = [...new Set(base.flatMap((t) => t.text.split(/\s+/)).filter((w) => /^[a-z]{4,}$/.test(w)))].sort();
  const text = (i: number): string => {
    const t = base[i % base.length]!;
    if (i < base.length) return `[${t.speaker}] ${t.text}`;
    const r = prng(i * 2654435761);
    const words = t.text.split(/(\s+)/).map((w) => (/^[a-z]{4,}$/.test(w) && r() < 0.25 ? vocab[Math.floor(r() * vocab.length)]! : w));
    const speaker = NAMES[Math.floor(r() * NAMES.length)]!;
    return `[${speaker}] ${words.join('')} ${DETAILS[Math.floor(r() * DETAILS.length)]!(r)}`;
  };
  return { base, questions, text };
}
