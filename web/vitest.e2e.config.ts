import { defineConfig } from 'vitest/config';

// End-to-end tests: node environment, playwright-core drives Debian's Chromium against the real
// standalone binary that each test file starts on a free port. Files run one after another so
// two instances never compete for the machine's two cores.
export default defineConfig({
  test: {
    environment: 'node',
    include: ['e2e/**/*.e2e.test.ts'],
    globalSetup: ['./e2e/support/global-setup.ts'],
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
