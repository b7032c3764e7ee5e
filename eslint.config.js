// Lint rules: the type-aware recommended sets, plus the few house rules design.md asks for.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'fs', message: 'Use node:fs.' },
            { name: 'path', message: 'Use node:path.' },
            { name: 'child_process', message: 'Use node:child_process.' },
          ],
        },
      ],
    },
  },
  {
    // Only upstream/ talks to the client SDK (design.md): the gateway stays SDK-agnostic.
    files: ['src/**/*.ts'],
    ignores: ['src/upstream/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['@modelcontextprotocol/client*'], message: 'Only src/upstream/ imports the client SDK.' }] },
      ],
    },
  },
);
