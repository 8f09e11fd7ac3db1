import { useEffect, useState } from 'react';
import { useStdout } from 'ink';

/** The terminal's size, re-read on every `resize` so the layout follows the window. */
export function useTerminalSize(): { columns: number; rows: number } {
  const { stdout } = useStdout();
  const read = () => ({ columns: stdout.columns || 80, rows: stdout.rows || 24 });
  const [size, setSize] = useState(read);
  useEffect(() => {
    const onResize = () => setSize((previous) => {
      const next = read();
      return next.columns === previous.columns && next.rows === previous.rows ? previous : next;
    });
    onResize();
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [stdout]);
  return size;
}
