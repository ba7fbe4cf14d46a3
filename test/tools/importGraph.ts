// The project's import graph and its rules (ARCHITECTURE.md "Layers"), checked by
// test/unit/imports.test.ts. Every import form counts: `import`, `import type`, `export … from`,
// `import()` and `require()` (TypeScript's own pre-processor finds them, comments never match).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import * as ts from 'typescript';

export interface ImportEdge {
  /** Importing file, project-relative with `/`. */
  from: string;
  /** The specifier as written. */
  spec: string;
  /** Project-relative file it resolves to (relative specifiers), else null (a package). */
  to: string | null;
  /** `import type` / `export type`: erased at run time. */
  typeOnly: boolean;
}

const EXTS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.mjs', '.cjs'];

function posix(p: string): string { return p.split(sep).join('/'); }

function sourcesUnder(dir: string, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sourcesUnder(p, out);
    else if (/\.(c|m)?[jt]sx?$/.test(name) && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

function resolveSpec(root: string, fromAbs: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null;
  const base = resolve(dirname(fromAbs), spec);
  const tries = [base, ...EXTS.map((e) => base + e), ...EXTS.map((e) => join(base, 'index' + e))];
  for (const t of tries) if (existsSync(t) && statSync(t).isFile()) return posix(relative(root, t));
  return posix(relative(root, base)); // unresolved: still named, so a rule can see where it points
}

/** Names `import type …` / `export type … from` specifiers of a file (erased at run time). */
function typeOnlySpecs(text: string): Set<string> {
  const out = new Set<string>();
  const re = /\b(?:import|export)\s+type\s+(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/g;
  for (let m = re.exec(text); m; m = re.exec(text)) out.add(m[1]!);
  return out;
}

/** Every import of every source file under `dirs` (project-relative). */
export function importEdges(root: string, dirs: readonly string[]): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of dirs.flatMap((d) => sourcesUnder(join(root, d)))) {
    const text = readFileSync(file, 'utf8');
    const info = ts.preProcessFile(text, true, true);
    const typeOnly = typeOnlySpecs(text);
    const from = posix(relative(root, file));
    for (const r of info.importedFiles) {
      edges.push({ from, spec: r.fileName, to: resolveSpec(root, file, r.fileName), typeOnly: typeOnly.has(r.fileName) });
    }
  }
  return edges;
}

export interface ImportRule {
  name: string;
  /** Files the rule applies to (project-relative). */
  applies(file: string): boolean;
  /** True when this import breaks the rule. */
  forbids(e: ImportEdge): boolean;
}

const under = (dir: string) => (f: string | null) => !!f && (f === dir || f.startsWith(dir + '/'));
const inEngine = under('src/engine');
const inProtocol = under('src/protocol');
const inSrc = under('src');
const inTest = under('test');
const inWebview = under('webview-ui/src');

export const IMPORT_RULES: readonly ImportRule[] = [
  {
    name: 'engine imports only the engine and packages (no vscode, protocol, surfaces or test)',
    applies: inEngine,
    forbids: (e) => e.spec === 'vscode' || (e.to !== null && !inEngine(e.to)),
  },
  {
    name: 'protocol imports nothing of ours',
    applies: inProtocol,
    forbids: (e) => e.spec === 'vscode' || (e.to !== null && !inProtocol(e.to)),
  },
  {
    name: 'src never imports test',
    applies: inSrc,
    forbids: (e) => inTest(e.to),
  },
  {
    name: 'webview imports only protocol (and itself)',
    applies: inWebview,
    forbids: (e) => e.spec === 'vscode' || (e.to !== null && !inWebview(e.to) && !inProtocol(e.to)),
  },
  {
    name: 'surfaces and the CLI use the facade, never engine/internals',
    applies: (f) => inSrc(f) && !inEngine(f),
    forbids: (e) => e.to !== null && /^src\/engine\/internals\.[cm]?[jt]s$/.test(e.to),
  },
];

export interface RuleViolation { rule: string; from: string; spec: string }

export function ruleViolations(edges: readonly ImportEdge[], rules: readonly ImportRule[] = IMPORT_RULES): RuleViolation[] {
  const out: RuleViolation[] = [];
  for (const e of edges) for (const r of rules) if (r.applies(e.from) && r.forbids(e)) out.push({ rule: r.name, from: e.from, spec: e.spec });
  return out;
}

/**
 * Import cycles among the given edges (type-only ones included: a cycle of types is the same tangle),
 * each as the files in order, rotated to start at its smallest name. One cycle per strongly connected
 * component is enough to report it; Tarjan's algorithm finds the components.
 */
export function importCycles(edges: readonly ImportEdge[]): string[][] {
  const graph = new Map<string, Set<string>>();
  for (const e of edges) {
    if (!e.to) continue;
    if (!graph.has(e.from)) graph.set(e.from, new Set());
    graph.get(e.from)!.add(e.to);
  }
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter); low.set(v, counter); counter++;
    stack.push(v); onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) { visit(w); low.set(v, Math.min(low.get(v)!, low.get(w)!)); }
      else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const comp: string[] = [];
      let w: string;
      do { w = stack.pop()!; onStack.delete(w); comp.push(w); } while (w !== v);
      if (comp.length > 1 || graph.get(v)?.has(v)) components.push(comp);
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return components.map((comp) => cycleIn(graph, new Set(comp))).sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** One cycle through the smallest file of a strongly connected component (breadth-first back to it). */
function cycleIn(graph: Map<string, Set<string>>, comp: Set<string>): string[] {
  const start = [...comp].sort()[0]!;
  const prev = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const v = queue[i]!;
    for (const w of [...(graph.get(v) ?? [])].sort()) {
      if (!comp.has(w)) continue;
      if (w === start) {
        const path = [v];
        while (path[0] !== start) path.unshift(prev.get(path[0]!)!);
        return path;
      }
      if (!prev.has(w) && w !== start) { prev.set(w, v); queue.push(w); }
    }
  }
  return [start];
}
