// ESLint for the extension's JavaScript (`npm run lint:js`, part of `make lint`): the recommended
// rules, with the globals each kind of file runs with.
import js from '@eslint/js';
import globals from 'globals';

export default [
  { ignores: ['node_modules/**', 'dist/**'] },
  js.configs.recommended,
  {
    // Content scripts are classic scripts sharing one namespace (globalThis.Paperscope).
    files: ['content/**/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: { ...globals.browser, ...globals.webextensions },
    },
  },
  {
    files: ['background/**/*.js', 'shared/**/*.js', 'popup/**/*.js', 'options/**/*.js'],
    languageOptions: {
      sourceType: 'module',
      globals: { ...globals.browser, ...globals.serviceworker, ...globals.webextensions },
    },
  },
  {
    files: ['test/**/*.js', 'scripts/**/*.mjs', '*.mjs'],
    languageOptions: { sourceType: 'module', globals: { ...globals.node, ...globals.browser } },
  },
  { rules: { 'no-unused-vars': ['error', { argsIgnorePattern: '^_', caughtErrors: 'none' }] } },
];
