import { configDefaults, defineConfig } from 'vitest/config';

// Three tiers, one project each; `vitest run` (npm test) runs them all, `--project <name>` one.
// unit: pure parts and gateway tests over in-memory upstreams, no Redis, seconds in all: the inner loop.
// perf: the garbage-collection, heap, bench and soak tests, which run the gateway as it ships (dist/)
// and take minutes of a 2-core machine.
// integration: the rest, with real Redis, real upstream processes and real clients.
const PERF = ['test/integration/{gc-regime,retained-heap,bench-profile,bench-signals,bench-smoke,soak-smoke}.test.ts'];
// Finds or starts the Redis that integration and perf tests share (the unit tier needs none).
const REDIS = ['test/support/global-setup.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration tests spawn real upstream processes; two cores do not like many at once.
    maxWorkers: 2,
    reporters: ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          // Each worker imports the modules once for all its files, not once per file: importing was
          // two thirds of this tier's time. The price: a unit test leaves no global state behind
          // (fake timers, environment, stubs, vi.mock), since the next file runs in the same realm.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/deploy/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...PERF],
          globalSetup: REDIS,
        },
      },
      { extends: true, test: { name: 'perf', include: PERF, globalSetup: REDIS } },
    ],
  },
});
