import React from 'react';
import { Box, Text } from 'ink';
import { LOOP_STATES } from '../engine/machine.js';
import { useConsole } from './context.js';
import { Line } from './Line.js';
import { stateColour, theme } from './theme.js';

/** The state machine as a strip: every state, the current one highlighted, and the last transition (`← FROM #seq`). */
export const StateStrip = React.memo(function StateStrip({ width }: { width: number }) {
  const state = useConsole((s) => s.session.machine.state);
  const from = useConsole((s) => s.session.lastTransition?.from ?? null);
  const at = useConsole((s) => s.session.lastTransition?.seq ?? null);
  return (
    <Box height={1} flexShrink={0}>
      <Line width={width}>
        {LOOP_STATES.map((name, i) => (
          <Text key={name}>
            {i > 0 ? <Text color={theme.border}> › </Text> : null}
            {name === state ? (
              <Text bold inverse color={stateColour[name]}>
                {' '}{name}{' '}
              </Text>
            ) : (
              <Text color={theme.muted}>{name}</Text>
            )}
          </Text>
        ))}
        {from !== null ? (
          <Text color={theme.muted}>
            {'  '}← {from} #{at}
          </Text>
        ) : null}
      </Line>
    </Box>
  );
});
