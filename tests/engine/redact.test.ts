import { describe, expect, it } from 'vitest';
import { createRedactor, isSecretEnvName, REDACTED } from '../../src/engine/redact.js';

const OPENAI = 'sk-test-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c';
const ENV = {
  OPENAI_API_KEY: OPENAI,
  MY_SERVICE_TOKEN: 'abcd1234efgh',
  DB_PASSWORD_PRIMARY: 'correct horse battery',
  SHORT_TOKEN: 'abc123',
  HOME: '/home/operator',
  PATH: '/usr/local/bin:/usr/bin',
  EDITOR_LAYOUT: 'vim-like-keys',
};

describe('createRedactor: environment values', () => {
  const redact = createRedactor(ENV);

  it('redacts the planted values inside nested objects and arrays', () => {
    const event = {
      seq: 3,
      type: 'tool.result',
      data: {
        output: `OPENAI_API_KEY=${OPENAI}\nusing token abcd1234efgh for the call`,
        lines: [['curl', '-H', `x-api: ${OPENAI}`], { nested: [{ deep: 'pre-abcd1234efgh-post' }] }],
        exit_code: 0,
        ok: true,
        missing: null,
      },
    };
    expect(redact(event)).toEqual({
      seq: 3,
      type: 'tool.result',
      data: {
        output: `OPENAI_API_KEY=${REDACTED}\nusing token ${REDACTED} for the call`,
        lines: [['curl', '-H', `x-api: ${REDACTED}`], { nested: [{ deep: `pre-${REDACTED}-post` }] }],
        exit_code: 0,
        ok: true,
        missing: null,
      },
    });
  });

  it('redacts values with spaces and regex characters, and secrets used as object keys', () => {
    const odd = createRedactor({ API_SECRET: 'a.b*c(d)[e]+$' });
    expect(odd('x a.b*c(d)[e]+$ y')).toBe(`x ${REDACTED} y`);
    expect(redact('pw: correct horse battery.')).toBe(`pw: ${REDACTED}.`);
    expect(redact({ [OPENAI]: 1 })).toEqual({ [REDACTED]: 1 });
  });

  it('leaves short values and variables with ordinary names alone', () => {
    const text = 'abc123 in /home/operator with /usr/local/bin:/usr/bin and vim-like-keys';
    expect(redact(text)).toBe(text);
  });

  it('tells secret variable names from ordinary ones', () => {
    // KEY, TOKEN, SECRET and PASSWORD anywhere in the name: a harmless value redacted costs
    // little, a key missed leaks (short values such as KEYMAP=us are never redacted).
    for (const name of ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'GITHUB_TOKEN', 'NODE_AUTH_TOKEN', 'AWS_SECRET_ACCESS_KEY', 'CLIENT_SECRET', 'PGPASSWORD', 'DB_PASSWORD_FILE', 'SMTP_PASS', 'GITHUB_PAT', 'npm_config__auth', 'my_api_key', 'APIKEY', 'TOKEN', 'SECRET_CANARY_TOKEN', 'MY_TOKEN_2', 'PRIVATE_KEY_PEM', 'SECRETS_JSON', 'keymap', 'DB_CREDENTIALS_URL']) {
      expect(isSecretEnvName(name), name).toBe(true);
    }
    for (const name of ['HOME', 'PATH', 'PWD', 'OLDPWD', 'SSH_AUTH_SOCK', 'LANG', 'BYPASS', 'EDITOR', 'TERM', 'LLM_ENDPOINT']) {
      expect(isSecretEnvName(name), name).toBe(false);
    }
  });
});

describe('createRedactor: known formats, with an empty environment', () => {
  const redact = createRedactor({});

  it.each([
    ['OpenAI', 'sk-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKL'],
    ['OpenAI project', 'sk-proj-Ab3_dE5-fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5z'],
    ['Anthropic', 'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_AbCdEf'],
    ['Stripe', 'sk_live_51HqLyjWDarjtT1zdp7dcXYZ'],
    ['GitHub classic', 'ghp_0123456789abcdefghijABCDEFGHIJ012345'],
    ['GitHub OAuth', 'gho_0123456789abcdefghijABCDEFGHIJ012345'],
    ['GitHub fine-grained', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH'],
    ['GitLab', 'glpat-xxxxxxxxxxxxxxxxxxxx'],
    ['AWS access key id', 'AKIAIOSFODNN7EXAMPLE'],
    ['Slack', 'xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx'],
    ['Google', 'AIzaSyA-1234567890abcdefghijklmnopqrstu'],
    ['npm', 'npm_abcdefghijklmnopqrstuvwxyz0123456789'],
    ['Hugging Face', 'hf_abcdefghijklmnopqrstuvwxyz0123456'],
    ['JWT', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'],
  ])('redacts a %s key in text', (_name, key) => {
    expect(redact(`key is ${key}, ok`)).toBe(`key is ${REDACTED}, ok`);
    expect(redact(`"${key}"`)).toBe(`"${REDACTED}"`);
  });

  it('redacts PEM private key blocks, whole or cut off', () => {
    const pem = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\nabc+/=\n-----END RSA PRIVATE KEY-----';
    expect(redact(`before\n${pem}\nafter`)).toBe(`before\n${REDACTED}\nafter`);
    expect(redact('x -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA')).toBe(`x ${REDACTED}`);
    expect(redact('-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF\n-----END PGP PRIVATE KEY BLOCK-----')).toBe(REDACTED);
    const cert = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----';
    expect(redact(cert)).toBe(cert);
  });

  it('redacts credentials after Authorization and Bearer, in URLs, and in secret-named assignments', () => {
    expect(redact('Authorization: Bearer abc.def-ghi_jkl')).toBe(`Authorization: Bearer ${REDACTED}`);
    expect(redact('-H "authorization: Basic dXNlcjpwYXNzd29yZA=="')).toBe(`-H "authorization: Basic ${REDACTED}"`);
    expect(redact('"Authorization": "token s3cr3tvalue1"')).toBe(`"Authorization": "token ${REDACTED}"`);
    expect(redact('curl -H "Bearer 0123456789abcdefXYZ"')).toBe(`curl -H "Bearer ${REDACTED}"`);
    expect(redact('git clone https://bot:hunter2hunter2@example.com/r.git')).toBe(`git clone https://bot:${REDACTED}@example.com/r.git`);
    expect(redact('export STRIPE_SECRET_KEY=whsec_abcdef123456')).toBe(`export STRIPE_SECRET_KEY=${REDACTED}`);
    expect(redact('{"api_key": "0123abcd4567efgh"}')).toBe(`{"api_key": "${REDACTED}"}`);
    expect(redact('password = "hunter2hunter2"')).toBe(`password = "${REDACTED}"`);
  });

  it('redacts every non-empty string under a secret-named object key', () => {
    expect(redact({ headers: { Authorization: 'x', 'X-Api-Key': 'short' }, accessToken: 'abc', password: '', token_count: 3 })).toEqual({
      headers: { Authorization: REDACTED, 'X-Api-Key': REDACTED },
      accessToken: REDACTED,
      password: '',
      token_count: 3,
    });
  });

  it('leaves ordinary text, code and loopdeck events untouched', () => {
    const texts = [
      'Ran 12 tests: 11 passed, 1 failed (ask mode). tokens: 1200, input_tokens: 4000',
      'const apiKey = getKey(); // the token is read at runtime',
      'task-runner sk-short AKIA1234 ghp_short risk-assessment-document',
      'Bearer tokens are checked by the server; see docs/auth.md',
      'https://example.com/path?q=1 and user@example.com',
      'naïve café 👍 — 漢字',
    ];
    for (const text of texts) expect(redact(text)).toBe(text);
    const event = { seq: 0, at: '2025-01-01T00:00:00.000Z', type: 'model.call', data: { usage: { input_tokens: 1200, output_tokens: 240 }, request_hash: 'a1b2c3d4e5f6a7b8' } };
    expect(redact(event)).toEqual(event);
  });
});

describe('createRedactor: copying', () => {
  const redact = createRedactor({ MY_SERVICE_TOKEN: 'abcd1234efgh' });

  it('does not mutate its input and returns fresh containers', () => {
    const input = { a: ['abcd1234efgh', { b: 'abcd1234efgh' }], c: 1 };
    const snapshot = structuredClone(input);
    const output = redact(input);
    expect(input).toEqual(snapshot);
    expect(output).toEqual({ a: [REDACTED, { b: REDACTED }], c: 1 });
    expect(output).not.toBe(input);
    expect(output.a).not.toBe(input.a);
    expect(output.a[1]).not.toBe(input.a[1]);
  });

  it('passes primitives through and copies like JSON.stringify would', () => {
    expect(redact(42)).toBe(42);
    expect(redact(null)).toBeNull();
    expect(redact(undefined)).toBeUndefined();
    expect(redact('abcd1234efgh')).toBe(REDACTED);
    expect(redact({ when: new Date('2025-01-02T03:04:05.000Z') })).toEqual({ when: '2025-01-02T03:04:05.000Z' });
  });

  it('keeps a __proto__ key as data and marks cycles', () => {
    const input = JSON.parse('{"__proto__": {"polluted": "abcd1234efgh"}}') as Record<string, unknown>;
    const output = redact(input) as Record<string, unknown>;
    expect(Object.getPrototypeOf(output)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(output, '__proto__')?.value).toEqual({ polluted: REDACTED });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const cyclic: Record<string, unknown> = { name: 'x' };
    cyclic.self = cyclic;
    const shared = { v: 1 };
    expect(redact(cyclic)).toEqual({ name: 'x', self: '[Circular]' });
    expect(redact([shared, shared])).toEqual([{ v: 1 }, { v: 1 }]);
  });

  it('uses process.env by default', () => {
    process.env.LOOPDECK_TEST_TOKEN = 'zz-planted-secret-99';
    try {
      expect(createRedactor()('got zz-planted-secret-99')).toBe(`got ${REDACTED}`);
    } finally {
      delete process.env.LOOPDECK_TEST_TOKEN;
    }
  });
});
