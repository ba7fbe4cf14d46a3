// One pass over a text that tells which of many string sets have a member occurring in it (the poison gate's
// prefilter, poisonGate.ts): an Aho–Corasick automaton over UTF-16 code units, compiled to a full transition table on
// an alphabet of the characters the strings use (every other character leads back to the start). Pure, no imports.

export class FactorScan {
  /** Number of string sets ("groups"); scan() marks hits[g] = 1 for each group with an occurrence. */
  readonly groups: number;
  private readonly width: number;
  private readonly classOf: Uint16Array;
  private readonly delta: Uint16Array | Int32Array;
  /** Groups whose strings end at a state (its own and those of its suffix states): outList[outStart[s] .. outStart[s + 1]). */
  private readonly outStart: Int32Array;
  private readonly outList: Int32Array;

  constructor(sets: readonly (readonly string[])[]) {
    this.groups = sets.length;
    // Alphabet: class 0 for characters no string uses.
    this.classOf = new Uint16Array(65536);
    let width = 1;
    for (const set of sets) {
      for (const s of set) {
        for (let i = 0; i < s.length; i++) {
          const c = s.charCodeAt(i);
          if (this.classOf[c] === 0) this.classOf[c] = width++;
        }
      }
    }
    this.width = width;
    // Trie.
    const children: Map<number, number>[] = [new Map()];
    const own: number[][] = [[]];
    sets.forEach((set, g) => {
      for (const s of set) {
        if (s.length === 0) throw new Error('FactorScan: an empty string occurs everywhere');
        let st = 0;
        for (let i = 0; i < s.length; i++) {
          const k = this.classOf[s.charCodeAt(i)];
          let next = children[st].get(k);
          if (next === undefined) {
            next = children.length;
            children.push(new Map());
            own.push([]);
            children[st].set(k, next);
          }
          st = next;
        }
        if (!own[st].includes(g)) own[st].push(g);
      }
    });
    // Breadth-first: failure links, full transitions, outputs merged along the failure chain.
    const n = children.length;
    const delta = n <= 65536 ? new Uint16Array(n * width) : new Int32Array(n * width); // half the memory while it fits
    const fail = new Int32Array(n);
    const out: number[][] = own.map((o) => o.slice());
    const queue: number[] = [];
    for (let k = 0; k < width; k++) {
      const next = children[0].get(k);
      if (next !== undefined) { delta[k] = next; fail[next] = 0; queue.push(next); }
    }
    for (let q = 0; q < queue.length; q++) {
      const st = queue[q];
      for (const g of out[fail[st]]) if (!out[st].includes(g)) out[st].push(g);
      for (let k = 0; k < width; k++) {
        const next = children[st].get(k);
        if (next !== undefined) {
          fail[next] = delta[fail[st] * width + k];
          delta[st * width + k] = next;
          queue.push(next);
        } else delta[st * width + k] = delta[fail[st] * width + k];
      }
    }
    this.delta = delta;
    this.outStart = new Int32Array(n + 1);
    let total = 0;
    for (let st = 0; st < n; st++) { this.outStart[st] = total; total += out[st].length; }
    this.outStart[n] = total;
    this.outList = new Int32Array(total);
    for (let st = 0, at = 0; st < n; st++) for (const g of out[st]) this.outList[at++] = g;
  }

  /** Number of automaton states (for status and tests). */
  get states(): number {
    return this.outStart.length - 1;
  }

  /** Marks hits[g] = 1 for every group with a string occurring in `text` (hits is not cleared). */
  scan(text: string, hits: Uint8Array): void {
    const { delta, classOf, outStart, outList, width } = this;
    let st = 0;
    for (let i = 0; i < text.length; i++) {
      st = delta[st * width + classOf[text.charCodeAt(i)]];
      const a = outStart[st], b = outStart[st + 1];
      for (let k = a; k < b; k++) hits[outList[k]] = 1;
    }
  }
}
