import React from 'react';
import { Box } from 'ink';
// Before the first frame: Ink's text pass keeps its caches across frames.
import './ink-output-cache.js';
// Every frame Ink writes leaves the terminal cursor at the caret, whichever panel changed.
import './ink-cursor.js';
import { useAlertShown } from './AlertBanner.js';
import { useFooterRows } from './CommandBar.js';
import { CompactLayout, FullLayout } from './layouts.js';
import { bannerFits, isCompact, planLayout, promptLimit, promptRoom, topRows } from './layout.js';
import { argsViewRows, usePrompt } from './PromptPanel.js';
import { useCaret } from './use-caret.js';
import { useConsoleKeys } from './use-console-keys.js';
import { useTerminalSize } from './use-terminal-size.js';

/** Rows help or an opened event needs over a prompt before the prompt gives up its rows to it. */
const MIN_OVERLAY_ROWS = 8;

/**
 * The console's root: measures the terminal, plans the rows, owns the keys through the
 * key map, and picks the full layout (80×24 and above) or the compact one; `hidden`
 * draws nothing (the console is suspended).
 */
export function App({ hidden = false }: { hidden?: boolean }) {
  const { columns, rows } = useTerminalSize();
  const { rows: footer, least: footerLeast } = useFooterRows(columns);
  const alert = useAlertShown();
  const limit = promptLimit(columns, rows, footer, alert);
  const whole = usePrompt(columns, limit, promptRoom(columns, rows), Math.max(1, rows - 1));
  // Help or an opened event over a prompt: the prompt in two rows when, whole, it would leave them too few.
  const prompt = whole?.covered && Math.max(1, rows - 1) - topRows(isCompact(columns, rows)) - footer - whole.rows < MIN_OVERLAY_ROWS ? whole.covered : whole;
  // A terminal too small for both: the prompt (its keys are never cut) keeps its rows and
  // the banner gives its row up, so the footer and the command bar stay in view; the alert
  // is still in the timeline.
  const banner = alert && bannerFits(columns, rows, prompt?.rows ?? 0, footer);
  const plan = planLayout({ columns, rows, prompt: prompt?.rows ?? 0, banner, footer, footerLeast });
  const inner = Math.max(10, columns - 4);
  useConsoleKeys({ single: plan.pane === 0, page: Math.max(1, plan.timeline - 1), width: columns, body: plan.body, args: { shown: argsViewRows(limit, inner, Math.max(1, rows - 1)), width: inner } }, hidden);
  // The prompt box sits under the fixed top and the banner; the command bar is the last row.
  useCaret({ hidden, promptTop: plan.top + (banner ? 1 : 0), promptCaret: prompt?.caret, barRow: plan.live - 1, width: columns });
  // Suspended (Ctrl+Z): nothing on screen; the keys and the store stay as they are.
  if (hidden) return null;
  return (
    <Box flexDirection="column" width={columns} height={plan.live} overflowY="hidden">
      {plan.compact ? <CompactLayout plan={plan} prompt={prompt?.node ?? null} /> : <FullLayout plan={plan} prompt={prompt?.node ?? null} />}
    </Box>
  );
}
