import React, { useRef, useState } from 'react';
import { Box, useInput, useStdout } from 'ink';
import { BudgetPanel } from './BudgetPanel.js';
import { CheckpointPanel } from './CheckpointPanel.js';
import { CommandBar } from './CommandBar.js';
import { useConsole, useController } from './context.js';
import { EventList } from './EventList.js';
import { Header } from './Header.js';
import { keyName, resolveKey, type ConsoleCommand, type KeyContext } from './keymap.js';
import { GatePanel } from './GatePanel.js';
import { PromptPanel } from './PromptPanel.js';
import { StagnationAlert } from './StagnationAlert.js';

/**
 * The console: panels stacked, one owner of keypresses. Keys map to commands through
 * the key map; while the command bar is open it alone receives keys.
 */
export function App() {
  const controller = useController();
  const pending = useConsole((s) => s.session.pending);
  const setNotice = useConsole((s) => s.setNotice);
  const [barOpen, setBarOpen] = useState(false);
  const [barText, setBarText] = useState('');
  const { stdout } = useStdout();
  const gate = useConsole((s) => s.gate);
  const exhausted = useConsole((s) => s.session.exhausted);
  const context: KeyContext = gate ? 'gate' : (pending?.kind ?? 'none');

  const run = (command: ConsoleCommand) => {
    switch (command) {
      case 'approve':
        return pending && controller.answer({ decision: 'approve' }, pending.seq);
      case 'deny':
        return pending && controller.answer({ decision: 'deny' }, pending.seq);
      case 'continue':
        return pending && controller.answer({ action: 'continue' }, pending.seq);
      case 'stop':
        return pending && controller.answer({ action: 'stop' }, pending.seq);
      case 'extend':
        if (!pending || !exhausted) return setNotice({ ok: false, text: 'e raises a spent budget; this pause is not a budget pause' });
        return void controller.extend?.(exhausted).then((result) => {
          setNotice({ ok: result.ok, text: result.message });
          if (result.ok) controller.answer({ action: 'continue' }, pending.seq);
        });
      case 'confirm':
        return controller.confirm?.();
      case 'redirect':
        setBarText('/goal redirect ');
        return setBarOpen(true);
      case 'open-command-bar':
        setBarText('/');
        return setBarOpen(true);
      case 'quit':
        return controller.quit();
    }
  };

  useInput(
    (input, key) => {
      const command = resolveKey(keyName(input, key), context);
      if (command) run(command);
    },
    { isActive: !barOpen },
  );

  const busy = useRef(false);
  const submit = (line: string) => {
    if (busy.current) return; // one command at a time: a second Enter must not run it twice
    busy.current = true;
    void controller.command(line).then((result) => {
      busy.current = false;
      setNotice({ ok: result.ok, text: result.message });
      if (result.ok) {
        setBarOpen(false);
        setBarText('');
      }
    });
  };

  // One row short of the terminal: a live region as tall as the screen makes Ink
  // clear and repaint everything on every frame.
  const height = Math.max(10, (stdout.rows ?? 24) - 1);
  return (
    <Box flexDirection="column" height={height}>
      <Header />
      <BudgetPanel />
      <CheckpointPanel />
      <StagnationAlert />
      <EventList />
      <GatePanel />
      {gate ? null : <PromptPanel />}
      <CommandBar
        open={barOpen}
        value={barText}
        onChange={setBarText}
        onSubmit={submit}
        onCancel={() => setBarOpen(false)}
        context={context}
      />
    </Box>
  );
}
