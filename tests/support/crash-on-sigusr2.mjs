// Preloaded into the CLI (`NODE_OPTIONS=--import <this file>`) by the end-to-end tests to
// crash it on cue: SIGUSR2 throws an uncaught exception from the event loop, as a bug
// anywhere in the process would, without changing the program under test.
process.on('SIGUSR2', () => {
  setImmediate(() => {
    throw new Error('injected crash (SIGUSR2, tests/support/crash-on-sigusr2.mjs)');
  });
});
