import { useCursor } from 'ink';
import { BAR_PREFIX } from './CommandBar.js';
import { useConsole } from './context.js';
import { caretColumn, useLineViewport } from './LineView.js';

/**
 * The terminal's own cursor at the caret of the text field that has focus, hidden
 * otherwise: an input method (Japanese, Chinese) opens its window where the cursor is. One
 * owner for the whole frame, since Ink keeps one cursor position: the command bar (its row
 * is `barRow`, the last of the live region) or a field in the prompt box (the deny note: the
 * prompt says where its caret is inside the box, whose top row is `promptTop`). Rows and
 * columns count from the frame's top-left corner, in cells.
 */
export function useCaret(at: { hidden: boolean; promptTop: number; promptCaret: { x: number; y: number } | undefined; barRow: number; width: number }): void {
  const input = useConsole((s) => s.input);
  const line = useConsole((s) => s.line);
  const viewport = useLineViewport();
  const { setCursorPosition } = useCursor();
  if (at.hidden || input === null) setCursorPosition(undefined);
  else if (input === 'bar') setCursorPosition({ x: caretColumn(viewport, BAR_PREFIX, line, at.width), y: at.barRow });
  else setCursorPosition(at.promptCaret ? { x: at.promptCaret.x, y: at.promptTop + at.promptCaret.y } : undefined);
}
