/**
 * Following sessions loopdeck does not run: `loopdeck watch` (a CLI agent's transcript)
 * and `loopdeck attach` (a loopdeck run started headless elsewhere). docs/watch.md.
 */
export { attachCommand, followHeadless, pickSession, watchCommand } from './command.js';
export { alertOf, BEL } from './alerts.js';
export { attachSource, RunLogReader } from './attach.js';
export { FileTail, type TailItem } from './tail.js';
export { TranscriptFeed, type WatchSettings } from './transcript-feed.js';
export { watchSource, watchSettingsOf } from './watch.js';
