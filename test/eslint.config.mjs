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
);
