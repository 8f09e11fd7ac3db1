import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.{ts,tsx}'],
    testTimeout: 60_000,
    // Both CPUs of the 2-CPU machines CI runs on (the default leaves one idle).
    maxWorkers: 2,
    hookTimeout: 60_000,
  },
});
