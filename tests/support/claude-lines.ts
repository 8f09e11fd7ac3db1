// Lines of a Claude Code session file (~/.claude/projects/<project>/<session>.jsonl), in
// the documented record shapes, for tests that append to a transcript as an agent would.
let message = 0;

/** An assistant record that runs one tool (`tool_use`), with its usage. */
export function toolUse(id: string, name: string, input: Record<string, unknown>, text = ''): string {
  message += 1;
  const content = [...(text ? [{ type: 'text', text }] : []), { type: 'tool_use', id, name, input }];
  return JSON.stringify({ type: 'assistant', sessionId: 's-watch', message: { id: `msg_${message}`, role: 'assistant', content, usage: { input_tokens: 100, output_tokens: 10 } } });
}

/** The user record carrying a tool's result. */
export function toolResult(id: string, output: string, isError = false): string {
  return JSON.stringify({ type: 'user', sessionId: 's-watch', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: output, is_error: isError }] } });
}
