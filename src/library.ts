/**
 * loopdeck as a library: what `import { ... } from 'loopdeck/engine'` gives. The engine's
 * public surface (src/engine/index.ts: sessions, policies, agents, tools, the event log and
 * its fold, hooks, errors) and the built-in operator policies a program wires into a
 * session's hook registry: the approval gate, the destructive-command guard, command hooks,
 * and `hooksFor`, which builds the registry a policy asks for. No console, no React.
 * Documented with a runnable example in docs/engine.md.
 */
export * from './engine/index.js';
export { hooksFor, approvalGate, destructiveDeny, commandHook, traceWriter, HookCommandError, type CommandHookSpec } from './hooks/index.js';
