import React from 'react';
import { Box, Text, useInput } from 'ink';
import TextInput from 'ink-text-input';
import { useConsole } from './context.js';
import { bindingsFor, type KeyContext } from './keymap.js';
import { sanitize } from './sanitize.js';
import { theme } from './theme.js';

export interface CommandBarProps {
  open: boolean;
  value: string;
  onChange: (value: string) => void;
  onSubmit: (value: string) => void;
  onCancel: () => void;
  context: KeyContext;
}

/**
 * The command bar: opened with `/`, Enter runs the line, Esc closes it. While it is
 * open it owns the keyboard, so typing never reaches a hotkey. Closed, it shows the
 * answer to the last command and the keys that apply now.
 */
export function CommandBar({ open, value, onChange, onSubmit, onCancel, context }: CommandBarProps) {
  const notice = useConsole((s) => s.notice);
  const done = useConsole((s) => s.session.done);
  useInput(
    (_input, key) => {
      if (key.escape) onCancel();
    },
    { isActive: open },
  );
  return (
    <Box flexDirection="column" flexShrink={0} paddingX={1}>
      {notice ? (
        <Text color={notice.ok ? theme.ok : theme.danger} wrap="truncate-end">
          {notice.ok ? '✓ ' : '✗ '}
          {sanitize(notice.text, { oneLine: true })}
        </Text>
      ) : null}
      {open ? (
        <Box>
          <Text color={theme.accent}>› </Text>
          <TextInput value={value} onChange={onChange} onSubmit={onSubmit} focus={open} />
        </Box>
      ) : (
        <Text color={theme.muted} wrap="truncate-end">
          {done ? `Run finished: ${done.reason}. ` : ''}
          {bindingsFor(context)
            .filter((b) => b.when === 'always')
            .map((b) => `[${b.key}] ${b.help}`)
            .join('  ')}
        </Text>
      )}
    </Box>
  );
}
