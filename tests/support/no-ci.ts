// Ink reads the CI flag once, when `is-in-ci` is first imported, and with CI set it
// writes only <Static> output (PITFALLS.md, "Ink 6"). UI tests read live frames, so the
// flag must be gone before anything imports ink. As a vitest `setupFiles` entry this runs
// before every test file's imports.
delete process.env.CI;
delete process.env.CONTINUOUS_INTEGRATION;
