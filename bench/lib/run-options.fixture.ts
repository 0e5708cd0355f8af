import type { RunOptions } from './types.js';

/** Run options for the harness's own tests: one window, goals read on the references' own rows. */
export const TEST_RUN_OPTIONS: RunOptions = {
  durationSeconds: 10,
  warmupSeconds: 2,
  connections: null,
  only: null,
  jsonPath: null,
  pin: false,
  cpuProfDir: null,
  replicas: 1,
  windows: 1,
  interleave: false,
};
