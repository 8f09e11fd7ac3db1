// Preloaded into the CLI (`NODE_OPTIONS=--import <this file>`) by the crash tests: with
// LOOPDECK_CRASH_AFTER=k the process SIGKILLs itself right after the k-th line of its
// events.jsonl is written, so a real process dies at an exact event boundary, without a
// change to the program under test.
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

const after = Number(process.env.LOOPDECK_CRASH_AFTER);
if (Number.isInteger(after) && after > 0) {
  const write = fs.writeSync;
  let lines = 0;
  fs.writeSync = function (fd, data, ...rest) {
    const written = write.call(this, fd, data, ...rest);
    if (fd > 2 && typeof data === 'string' && data.startsWith('{"seq":') && data.endsWith('\n') && ++lines >= after) process.kill(process.pid, 'SIGKILL');
    return written;
  };
  syncBuiltinESMExports();
}
