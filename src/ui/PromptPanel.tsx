import React from 'react';
import { Box, Text } from 'ink';
import { useConsole } from './context.js';
import { bindingsFor } from './keymap.js';
import { sanitize, truncate } from './sanitize.js';
import { theme } from './theme.js';

function Keys({ context }: { context: 'tool' | 'pause' }) {
  return (
    <Text>
      {bindingsFor(context)
        .filter((b) => b.when === context)
        .map((b) => (
          <Text key={b.key}>
            <Text bold color={theme.accent}>[{b.key}]</Text> {b.help}{'  '}
          </Text>
        ))}
    </Text>
  );
}

/** The yield the run waits on: a tool call to approve, or a pause to answer. */
export function PromptPanel() {
  const pending = useConsole((s) => s.session.pending);
  if (!pending) return null;
  if (pending.kind === 'tool') {
    const { call } = pending;
    const args = call.name === 'shell' && typeof call.args.command === 'string' ? call.args.command : JSON.stringify(call.args);
    return (
      <Box flexDirection="column" flexShrink={0} borderStyle="round" borderColor={theme.warn} paddingX={1}>
        <Text>
          <Text bold color={theme.warn}>Approve tool call </Text>
          <Text bold>{call.name}</Text>
          <Text color={theme.muted}> ({call.id})</Text>
        </Text>
        <Text>$ {truncate(sanitize(args, { oneLine: true }), 200)}</Text>
        <Keys context="tool" />
      </Box>
    );
  }
  return (
    <Box flexDirection="column" flexShrink={0} borderStyle="round" borderColor={theme.warn} paddingX={1}>
      <Text bold color={theme.warn}>Paused: {pending.reason}</Text>
      <Text wrap="wrap">{sanitize(pending.prompt, { oneLine: true })}</Text>
      <Keys context="pause" />
    </Box>
  );
}
