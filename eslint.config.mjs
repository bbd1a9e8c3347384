// Lint configuration: typescript-eslint's recommended rules over all TypeScript sources. The
// direction of imports between our folders is dependency-cruiser's (.dependency-cruiser.mjs).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      '.data/**',
      'build/**',
      '.next/**',
      '.next-*/**',
      'coverage/**',
      'lib/server/db/generated/**',
      'next-env.d.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "MemberExpression[object.object.name='process'][object.property.name='env'] > Identifier",
          message: 'Read environment variables through a zod-validated config module.',
        },
      ],
    },
  },
  // A function fits a screen (about 80 lines): longer ones read as named steps or parts. Tests are
  // left out: a describe block's callback groups tests, it is not a function to read in one go.
  {
    files: ['**/*.{ts,tsx,mjs}'],
    ignores: ['tests/**'],
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
  // Tool configuration files run outside the app and read their own environment; lib/core/config is the
  // one module of the app that reads it.
  {
    files: ['*.config.ts', '*.config.mjs', 'lib/core/config/**'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  // The browser tests' global setup hands its URLs to the test workers through the environment
  // (Playwright's way); this one module reads them back.
  {
    files: ['tests/e2e/support/e2e-env.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
);
