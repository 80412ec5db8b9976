import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'web/dist/**', 'test-output/**', 'bench/results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // Tests read JSON bodies of many shapes; `any` there keeps assertions readable.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The web never bundles server runtime code: only types from src/ (through the `@server/*` alias),
    // plus the pure-data files below, which have no runtime imports of their own.
    files: ['web/src/**/*.{ts,tsx}'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^@server/(?!(core/modes|core/picker|schemas/event-types)$)',
              allowTypeImports: true,
              message: 'the web imports only types from src/ (import type), except the pure-data core/modes, core/picker and schemas/event-types',
            },
            { group: ['**/src/**', '!./**', '!../**/web/src/**'], message: 'import server code through the @server/* alias, type-only' },
          ],
        },
      ],
    },
  },
  {
    // Bundled into the web app as they are (see web/src/app/picker.ts): no runtime imports, so they can
    // never pull Node or server code into the browser.
    files: ['src/core/modes.ts', 'src/core/picker.ts', 'src/schemas/event-types.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**', '*'], allowTypeImports: true, message: 'this file is bundled into the web app: type imports only' }] },
      ],
    },
  },
  {
    files: ['bin/**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
);
