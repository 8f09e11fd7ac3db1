import React, { type ReactNode } from 'react';
import { Box, Text } from 'ink';
import { theme } from './theme.js';

/** A panel: a one-line title (with optional detail on the same line) and its body. */
export function Section({ title, detail, children }: { title: string; detail?: ReactNode; children?: ReactNode }) {
  return (
    <Box flexDirection="column" flexShrink={0}>
      <Text wrap="truncate-end">
        <Text color={theme.border}>── </Text>
        <Text bold>{title}</Text>
        {detail ? <Text> {detail}</Text> : null}
      </Text>
      {children ? <Box flexDirection="column" paddingLeft={1}>{children}</Box> : null}
    </Box>
  );
}
