import React, { type ReactNode } from 'react';
import { Box, Text } from 'ink';
import { theme } from './theme.js';

/**
 * A column of one-row items in exactly `height` rows. Items past the height are cut and
 * the last row says how many were cut; every item keeps its row (Ink would otherwise
 * shrink rows of an overfull box to nothing, anywhere in the column).
 */
export function Rows({ height, items, more = 'more' }: { height: number; items: ReactNode[]; more?: string }) {
  const rows = Math.max(0, height);
  const shown = items.length > rows ? [...items.slice(0, Math.max(0, rows - 1)), <Text color={theme.muted}>… {items.length - rows + 1} {more}</Text>] : items;
  return (
    <Box flexDirection="column" height={rows} overflowY="hidden" flexShrink={0}>
      {shown.slice(0, rows).map((item, i) => (
        <Box key={i} height={1} flexShrink={0}>
          {item}
        </Box>
      ))}
    </Box>
  );
}
