// ESLint flat config. Import boundaries follow bulletproof-react: shared code (components, lib,
// testing) never imports features or app; features never import app nor each other; app composes.
import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import importPlugin from 'eslint-plugin-import';
import jsxA11y from 'eslint-plugin-jsx-a11y';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const features = readdirSync(new URL('./src/features', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

const crossFeatureZones = features.map((feature) => ({
  target: `./src/features/${feature}`,
  from: './src/features',
  except: [`./${feature}`],
  message: 'A feature must not import another feature: compose them in src/app.',
}));

/** Import boundaries; tests of shared code may use the MSW handlers in src/testing. */
function boundaryZones({ allowTesting }) {
  return [
    ...crossFeatureZones,
    {
      target: './src/features',
      from: './src/app',
      message: 'Features must not import from src/app.',
    },
    {
      target: ['./src/components', './src/lib'],
      from: allowTesting ? ['./src/features', './src/app'] : ['./src/features', './src/app', './src/testing'],
      message: 'Shared code must not import features, app or testing code.',
    },
  ];
}

export default tseslint.config(
  { ignores: ['dist', 'node_modules', 'test-results', 'coverage'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx}'],
    languageOptions: {
      ecmaVersion: 2022,
      globals: { ...globals.browser },
    },
    plugins: { import: importPlugin, 'react-hooks': reactHooks, 'jsx-a11y': jsxA11y },
    settings: {
      'import/resolver': {
        typescript: { project: ['./tsconfig.app.json', './tsconfig.node.json'], noWarnOnMultipleProjects: true },
        node: true,
      },
    },
    rules: {
      ...reactHooks.configs.recommended.rules,
      ...jsxA11y.flatConfigs.recommended.rules,
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'import/no-cycle': 'error',
      'import/order': [
        'error',
        {
          groups: ['builtin', 'external', 'internal', 'parent', 'sibling', 'index'],
          pathGroups: [{ pattern: '@/**', group: 'internal' }],
          alphabetize: { order: 'asc', caseInsensitive: true },
        },
      ],
      'import/no-restricted-paths': ['error', { zones: boundaryZones({ allowTesting: false }) }],
    },
  },
  {
    files: ['src/**/*.test.{ts,tsx}'],
    rules: {
      'import/no-restricted-paths': ['error', { zones: boundaryZones({ allowTesting: true }) }],
    },
  },
  {
    files: ['*.config.{ts,js}', 'e2e/**/*.ts', 'scripts/**/*.mjs'],
    languageOptions: { globals: { ...globals.node } },
  },
);
