// The console's public names. cli.tsx loads run-console.js lazily (Ink is not needed headless).
export { App } from './App.js';
export { ConsoleProvider, type ConsoleController, type ConsoleOptions } from './context.js';
export { KEYMAP, resolveKey, keyName, type ConsoleCommand, type Scope } from './keymap.js';
export { createLiveConsole } from './live.js';
export { createReplay, ReplayIndex } from './replay.js';
export { replayConsole, runConsole, type ConsoleResult } from './run-console.js';
export { batchInto, createConsoleStore, type ConsoleState, type ConsoleStore } from './store.js';
