// Size limits for src/ (STYLE.md): no function over 80 lines, no file over 500 lines, except where
// an allow-list entry says why (test/unit/sizes.test.ts). Functions are found with TypeScript's parser:
// declarations, methods, accessors, constructors, function expressions and arrow functions, each
// measured from its first to its last line (a nested function counts in its parent too).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import * as ts from 'typescript';

export const MAX_FUNCTION_LINES = 80;
export const MAX_FILE_LINES = 500;

export interface SizeOffender {
  /** `path` for a file, `path#name` for a function (name: the declared or assigned name, else `<anonymous>@line`). */
  key: string;
  lines: number;
}

function sources(dir: string, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (/\.ts$/.test(name) && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

function nameOf(node: ts.Node, sf: ts.SourceFile): string {
  const named = node as { name?: ts.Node };
  if (named.name && (ts.isIdentifier(named.name) || ts.isStringLiteral(named.name) || ts.isPrivateIdentifier(named.name))) {
    const own = named.name.text;
    const cls = node.parent && ts.isClassLike(node.parent) && node.parent.name ? `${node.parent.name.text}.` : '';
    return cls + own;
  }
  if (ts.isConstructorDeclaration(node) && node.parent.name) return `${node.parent.name.text}.constructor`;
  const p = node.parent;
  if (p && ts.isVariableDeclaration(p) && ts.isIdentifier(p.name)) return p.name.text;
  if (p && ts.isPropertyAssignment(p) && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name))) return p.name.text;
  if (p && ts.isPropertyDeclaration(p) && ts.isIdentifier(p.name)) return p.name.text;
  return `<anonymous>@${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1}`;
}

/** Offending files and functions under `dirs` (project-relative keys with `/`). */
export function sizeOffenders(root: string, dirs: readonly string[], maxFn = MAX_FUNCTION_LINES, maxFile = MAX_FILE_LINES): SizeOffender[] {
  const out: SizeOffender[] = [];
  for (const file of dirs.flatMap((d) => sources(join(root, d)))) {
    const rel = relative(root, file).split(sep).join('/');
    const text = readFileSync(file, 'utf8');
    const fileLines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (fileLines > maxFile) out.push({ key: rel, lines: fileLines });
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && (node as ts.FunctionLikeDeclaration).body) {
        const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
        const last = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
        const lines = last - first + 1;
        if (lines > maxFn) out.push({ key: `${rel}#${nameOf(node, sf)}`, lines });
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return out.sort((a, b) => a.key.localeCompare(b.key));
}
