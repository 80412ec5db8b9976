import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

/** Every top-level folder of src/ (plus the root-level ids.ts), for the layer rules below. */
const SOURCE_FOLDERS = ['adapters', 'cli', 'core', 'errors', 'git', 'harness', 'ids', 'llm', 'sandbox', 'schemas', 'server', 'services', 'store', 'tools', 'worktree'];

/**
 * A `no-restricted-imports` pattern forbidding relative imports that climb into one of `folders`
 * (`../services/x.js`, `../../services/x.js`). Subfolders of a layer never share a name with a top-level
 * folder, so the climb depth does not matter. See docs/architecture.md for why each layer may import what.
 */
function forbidFolders(folders, message) {
  return { regex: `^(\\.\\./)+(${folders.join('|')})(/|\\.js$)`, message };
}

/** The layer rules (docs/architecture.md): imports flow one way, enforced per folder. */
const LAYERS = [
  {
    files: ['src/core/**/*.ts'],
    forbidden: SOURCE_FOLDERS.filter((folder) => folder !== 'core'),
    message: 'core/ is the pure domain: it imports only core/ (and npm packages)',
  },
  {
    files: ['src/adapters/**/*.ts'],
    forbidden: ['services', 'server', 'store', 'cli'],
    message: 'adapters are transports: they never import services, the server, the store or the CLI (take what you need through TransportRunContext)',
  },
  {
    files: ['src/harness/**/*.ts'],
    forbidden: ['services', 'server', 'store', 'cli', 'adapters'],
    message: 'the harness gets a tool surface and a completion contract as plain data: it never imports services, server, store, adapters or the CLI',
  },
  {
    files: ['src/sandbox/**/*.ts'],
    forbidden: ['tools', 'services', 'server', 'store', 'cli', 'adapters', 'harness'],
    message: 'sandbox/ is infrastructure below tools: it never imports tools, services, server, store, adapters, harness or the CLI',
  },
  {
    files: ['src/git/**/*.ts', 'src/worktree/**/*.ts'],
    forbidden: ['tools', 'services', 'server', 'store', 'cli', 'harness', 'adapters'],
    message: 'git/ and worktree/ are infrastructure below tools, services and adapters: they never import tools, services, server, store, harness, adapters or the CLI',
  },
  {
    files: ['src/llm/**/*.ts', 'src/store/**/*.ts', 'src/errors/**/*.ts', 'src/schemas/**/*.ts'],
    forbidden: ['services', 'server', 'cli', 'adapters', 'tools'],
    message: 'llm/, store/, errors/ and schemas/ sit below services: they never import services, server, adapters, tools or the CLI',
  },
  {
    files: ['src/tools/**/*.ts'],
    forbidden: ['services', 'server', 'cli', 'adapters', 'store'],
    message: 'a tool runs on the worktree and sandbox it is given: tools never import services, server, adapters, store or the CLI',
  },
];

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
              regex: '^@server/(?!(core/modes|core/picker|core/chat-space-name|core/relay/known-acp-agents|schemas/event-types|services/runs/compaction-words|services/runs/read-context-report)$)',
              allowTypeImports: true,
              message: 'the web imports only types from src/ (import type), except the pure-data core/modes, core/picker, core/chat-space-name, core/relay/known-acp-agents, schemas/event-types, services/runs/compaction-words and services/runs/read-context-report',
            },
            { group: ['**/src/**', '!./**', '!../**/web/src/**'], message: 'import server code through the @server/* alias, type-only' },
          ],
        },
      ],
    },
  },
  {
    // The rules of hooks, exhaustive effect/memo dependencies as errors, and the React Compiler checks of
    // the plugin's recommended set (set-state-in-effect, refs, purity …): web/src is clean against all of them.
    files: ['web/src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.flat.recommended.rules,
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
  // The layer rules use ESLint's own `no-restricted-imports`, which also stops `import type`: a layer
  // must not even know the types of the layers above it. The web rules below use the typescript-eslint
  // variant (type imports allowed); being two rules, neither overrides the other.
  ...LAYERS.map((layer) => ({
    files: layer.files,
    rules: { 'no-restricted-imports': ['error', { patterns: [forbidFolders(layer.forbidden, layer.message)] }] },
  })),
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
