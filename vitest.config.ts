import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.{ts,tsx}'],
    // Deletes CI before any test file imports Ink, which otherwise draws no live frames (docs/stack.md).
    setupFiles: ['tests/support/no-ci.ts'],
    testTimeout: 60_000,
    // Both CPUs of the 2-CPU machines CI runs on (the default leaves one idle).
    maxWorkers: 2,
    hookTimeout: 60_000,
  },
});
