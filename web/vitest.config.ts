import { fileURLToPath, URL } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

// Unit and component tests: jsdom; MSW answers with typed fixtures (src/testing/fixtures), every
// request and answer checked against docs/openapi.json (src/testing/contract.ts).
export default defineConfig({
  plugins: [react()],
  resolve: {
    alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) },
  },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['./src/testing/setup-tests.ts'],
    restoreMocks: true,
    // Room for the 5 s waits of setup-tests.ts on a loaded machine.
    testTimeout: 20_000,
    environmentOptions: { jsdom: { url: 'http://localhost:3000/' } },
  },
});
