// A bare Ink hello-world: the floor for the console's cold start in bench/console.ts,
// which spawns it in a pseudo-terminal exactly as it spawns `node dist/cli.js replay`.
// Plain JavaScript so that node runs it as is, with no loader. It stays up (like the
// console) until the bench kills it, so its CPU time can be read at its first frame.
import React from 'react';
import { render, Text } from 'ink';

render(React.createElement(Text, null, 'Hello, world'));
setTimeout(() => undefined, 60_000);
