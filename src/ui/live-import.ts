/**
 * Ink decides once, when it is first imported, whether it runs in CI (the `CI` or
 * `CONTINUOUS_INTEGRATION` variable set and not `0` or `false`); in CI it writes only
 * `<Static>` output and never a live frame (docs/stack.md, "Ink 6"). An operator who opens
 * the console in a terminal whose environment says CI (a debugging shell in a CI job, a
 * container that sets it) would see the outline and nothing after it.
 */
const CI_VARIABLES = ['CI', 'CONTINUOUS_INTEGRATION'] as const;

/**
 * Runs `load`, the import of a module that imports Ink, with the CI variables out of
 * `process.env`, and puts them back once it settles: Ink draws live frames, while the
 * agent's tools, hooks and commands started later still see the environment as it was.
 * Nothing else may start a process while the import runs (the caller awaits it first).
 * @throws whatever `load` throws, with the variables back in place
 */
export async function importLive<T>(load: () => Promise<T>): Promise<T> {
  const saved = CI_VARIABLES.map((name) => [name, process.env[name]] as const);
  for (const [name] of saved) delete process.env[name];
  try {
    return await load();
  } finally {
    for (const [name, value] of saved) if (value !== undefined) process.env[name] = value;
  }
}
