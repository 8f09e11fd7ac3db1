/**
 * What an OpenAI-compatible server said when a request failed, in words an operator can
 * act on. Servers disagree on the shape of an error body; the ones read here are the
 * documented ones:
 * - OpenAI, vLLM (current), LM Studio: `{"error": {"message", "type", "param", "code"}}`;
 * - vLLM (older releases): the error at the top level, `{"object": "error", "message", ...}`
 *   (the `openai` SDK reads only `error` and reports `400 status code (no body)`);
 * - Ollama, LM Studio: `{"error": "model 'x' not found"}` (a string);
 * - llama.cpp server: `{"error": {"code", "message", "type": "exceed_context_size_error",
 *   "n_prompt_tokens", "n_ctx"}}`;
 * - OpenRouter: `{"error": {"code", "message", "metadata": {"provider_name", "raw"}}}`, also
 *   sent in-band as an SSE event after HTTP 200;
 * - FastAPI-based servers: `{"detail": "..."}` or `{"detail": [{"msg": ...}]}`;
 * - proxies: an HTML page, or plain text.
 */

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Characters of a server's own words quoted in a message. */
const QUOTE = 300;

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= QUOTE ? flat : `${flat.slice(0, QUOTE)}…`;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The message inside an error object of any documented shape, with what else it names. */
export function errorObjectText(error: unknown): string {
  if (typeof error === 'string') return oneLine(error);
  if (!isObject(error)) return '';
  const parts: string[] = [];
  const message = error.message ?? error.msg ?? error.detail ?? error.error;
  if (typeof message === 'string') parts.push(oneLine(message));
  else if (Array.isArray(message)) parts.push(oneLine(message.map((m) => (isObject(m) ? String(m.msg ?? m.message ?? '') : String(m))).join('; ')));
  else if (isObject(message)) parts.push(errorObjectText(message));
  const extra: string[] = [];
  if (typeof error.type === 'string' && error.type) extra.push(`type ${error.type}`);
  if (typeof error.code === 'string' || typeof error.code === 'number') extra.push(`code ${error.code}`);
  if (typeof error.n_prompt_tokens === 'number' && typeof error.n_ctx === 'number') {
    extra.push(`${error.n_prompt_tokens} prompt tokens for a context of ${error.n_ctx}`);
  }
  const metadata = isObject(error.metadata) ? error.metadata : {};
  if (typeof metadata.provider_name === 'string') extra.push(`provider ${metadata.provider_name}`);
  if (typeof metadata.raw === 'string' && metadata.raw) extra.push(`provider said: ${oneLine(metadata.raw)}`);
  else if (isObject(metadata.raw)) extra.push(`provider said: ${oneLine(JSON.stringify(metadata.raw))}`);
  const text = parts.filter(Boolean).join(' ') || (extra.length > 0 ? '' : oneLine(JSON.stringify(error)));
  return extra.length > 0 ? `${text}${text ? ' ' : ''}(${extra.join(', ')})` : text;
}

/** What an error body says, read through every documented shape; `''` for an empty body. */
export function errorBodyText(body: string): string {
  const trimmed = body.trim();
  if (!trimmed) return '';
  const json = parseJson(trimmed);
  if (isObject(json)) {
    if (json.error !== undefined && json.error !== null) return errorObjectText(json.error);
    if (json.object === 'error' || typeof json.message === 'string') return errorObjectText(json);
    if (json.detail !== undefined) return errorObjectText({ message: json.detail });
    return oneLine(trimmed);
  }
  if (/^<(!doctype|html)/i.test(trimmed)) {
    const title = /<title[^>]*>([^<]*)<\/title>/i.exec(trimmed)?.[1];
    return `an HTML page${title ? ` titled "${oneLine(title)}"` : ''} instead of JSON (a proxy or a web server answered, not the model server)`;
  }
  return oneLine(trimmed);
}

const CONTEXT_PATTERNS = [
  /maximum context length/i,
  /context length/i,
  /context size/i,
  /context window/i,
  /exceed_context_size/i,
  /context_length_exceeded/i,
  /too many tokens/i,
  /prompt is too long/i,
  /reduce the length/i,
];

/** What an HTTP status (and the server's words) means for the operator; `''` when nothing useful. */
export function errorMeaning(status: number | null, said: string, model: string): string {
  if (CONTEXT_PATTERNS.some((pattern) => pattern.test(said))) {
    return "the conversation no longer fits the model's context window";
  }
  switch (status) {
    case 401:
      return 'the server refused the API key (check agent.api_key_env)';
    case 402:
      return 'the account has no credit left';
    case 403:
      return 'the server refused the request (permissions, or a moderation flag)';
    case 404:
      return `the server does not serve the model "${model}" at this address (check agent.model and agent.base_url)`;
    case 408:
      return 'the server timed out';
    case 413:
      return 'the request is too large for the server';
    case 429:
      return 'the server is rate-limiting requests';
    case 502:
    case 503:
    case 504:
      return 'the model server (or the provider behind a gateway) is down or overloaded';
    default:
      return status !== null && status >= 500 ? 'the server failed on its side' : '';
  }
}

/** `<said> — <meaning>`, leaving out what is empty. */
export function explain(status: number | null, said: string, model: string): string {
  const meaning = errorMeaning(status, said, model);
  if (said && meaning) return `${said} — ${meaning}`;
  return said || meaning || 'no reason given';
}
