// Lint: typescript-eslint's recommended rules for src/ and test/, plus the engine boundary —
// src/engine, src/protocol and src/server never import 'vscode' (test/unit/boundary.test.ts
// checks the same by scanning sources). Run: npx eslint -c test/eslint.config.mjs src test
import tseslint from 'typescript-eslint';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export default tseslint.config(
  { basePath: root },
  { ignores: ['dist/**', 'out/**', 'node_modules/**', '.tools/**', '.scratch/**', 'dist-vsix/**', '**/*.js', '**/*.mjs'] },
  {
    files: ['src/**/*.ts', 'test/**/*.ts', 'webview-ui/src/**/*.ts'],
    extends: [...tseslint.configs.recommended],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Empty bodies are deliberate for no-op disposers and loggers.
      '@typescript-eslint/no-empty-function': 'off',
    },
  },
  {
    files: ['src/engine/**/*.ts', 'src/protocol/**/*.ts', 'src/server/**/*.ts', 'src/hooks/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'vscode', message: "The engine boundary: src/engine, src/protocol, src/server and src/hooks never import 'vscode' (ARCHITECTURE.md)." }],
      }],
      '@typescript-eslint/no-require-imports': 'error',
    },
  },
  // The layer rules (README "Code layout"); test/unit/imports.test.ts checks the same on the import graph — every
  // import form and cycles included — and proves each rule catches a violation. Later blocks win for a rule, so
  // each block repeats the vscode boundary where it applies.
  {
    files: ['src/engine/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'vscode', message: "The engine boundary: src/engine never imports 'vscode' (README, Code layout)." }],
        patterns: [{ group: ['**/protocol/*', '**/vscode/*', '**/server/*', '**/mcp/*', '**/hooks/*', '**/cli/*', '**/cli', '**/test/**'], message: 'The engine imports only the engine and packages.' }],
      }],
    },
  },
  {
    files: ['src/protocol/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: ['vscode'], patterns: [{ group: ['../*'], message: 'src/protocol imports nothing of ours.' }] }] },
  },
  {
    files: ['src/server/**/*.ts', 'src/hooks/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'vscode', message: "The engine boundary: src/server and src/hooks never import 'vscode'." }],
        patterns: [{ group: ['**/engine/internals'], message: 'Surfaces use the MemoryEngine facade, never engine/internals.' }, { group: ['**/test/**'], message: 'src never imports test.' }],
      }],
    },
  },
  {
    files: ['src/vscode/**/*.ts', 'src/mcp/**/*.ts', 'src/cli/**/*.ts', 'src/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ group: ['**/engine/internals'], message: 'Surfaces use the MemoryEngine facade, never engine/internals.' }, { group: ['**/test/**'], message: 'src never imports test.' }] }] },
  },
  {
    files: ['webview-ui/src/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: ['vscode'], patterns: [{ group: ['../../src/*', '!../../src/protocol'], message: 'The webview imports only src/protocol.' }] }] },
  },
);
