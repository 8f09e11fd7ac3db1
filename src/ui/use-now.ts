import { useEffect, useState } from 'react';

/**
 * The current time in epoch ms, re-read every `intervalMs` while `active`. The render that
 * turns it on reads the clock itself: the time kept from before (when it was last on, or
 * when the component mounted) may be long past, and a countdown drawn from it would show
 * more time left than there is.
 */
export function useNow(active: boolean, intervalMs = 1000): number {
  const [kept, setKept] = useState(() => ({ now: Date.now(), active }));
  let now = kept.now;
  if (active !== kept.active) {
    if (active) now = Date.now();
    setKept({ now, active });
  }
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setKept({ now: Date.now(), active: true }), intervalMs);
    return () => clearInterval(timer);
  }, [active, intervalMs]);
  return now;
}
