/**
 * A shell script that dumps into the file `$1` the environment of every ancestor of the
 * shell (`/proc/<pid>/environ`, walking `PPid` up to pid 1, each headed by its command
 * line) and then its own (`env`): what a tool or hook could read of loopdeck's environment.
 */
export const ENVIRON_WALK = [
  'out="$1"',
  ': > "$out"',
  'pid=$$',
  'while [ -n "$pid" ] && [ "$pid" -gt 1 ]; do',
  '  echo "== pid $pid: $(tr "\\0" " " < /proc/$pid/cmdline 2>/dev/null)" >> "$out"',
  '  tr "\\0" "\\n" < /proc/$pid/environ >> "$out" 2>/dev/null || echo "(environ unreadable)" >> "$out"',
  '  pid=$(awk \'/^PPid:/ {print $2}\' /proc/$pid/status)',
  'done',
  'echo "== env" >> "$out"',
  'env >> "$out"',
  '',
].join('\n');
