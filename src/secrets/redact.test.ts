import { describe, expect, it } from 'vitest';
import { MAX_RESULT_CHARS, MAX_TEXT_CHARS, resultText, TurnSink } from '../model/conversation.js';
import { plantedSecrets } from '../test-support/planted-secrets.js';
import { cutOutside } from './cut.js';
import { findSecrets } from './detect.js';
import { masked, redact, redactEach, SHOWN_CHARS } from './redact.js';

const PLANTED = plantedSecrets();

describe('finding secrets', () => {
  for (const p of PLANTED)
    it(`finds a ${p.kind} as its line carries it (${p.value.slice(0, 6)}…)`, () => {
      const found = findSecrets(p.line);
      expect(found.map((f) => f.kind)).toEqual([p.kind]);
      const [f] = found;
      expect(p.line.slice(f!.start, f!.end)).toContain(p.value);
    });

  it('ordinary words, paths, hashes and placeholders are not secrets', () => {
    const text = [
      'Ran the tests: 42 passed in src/views/cli/secrets.test.ts',
      'commit 3f68a6c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6',
      'PASSWORD=changeme',
      'API_KEY=your-api-key-here',
      'postgres://localhost:5432/app',
      'https://example.com/docs/getting-started',
    ].join('\n');
    expect(findSecrets(text)).toEqual([]);
  });
});

describe('redacting', () => {
  it('a secret becomes its first characters and its kind, the text around it kept', () => {
    const openai = PLANTED.find((p) => p.kind === 'OpenAI key')!;
    expect(redact(`use ${openai.value} now`)).toBe(
      `use ${openai.value.slice(0, SHOWN_CHARS)}…[redacted: OpenAI key] now`,
    );
    expect(masked('sk-proj-abc', 'OpenAI key')).toBe('sk-p…[redacted: OpenAI key]');
  });

  it('redacted text is left as it is when redacted again', () => {
    const all = PLANTED.map((p) => p.line).join('\n');
    const once = redact(all);
    expect(redact(once)).toBe(once);
    for (const p of PLANTED) expect(once).not.toContain(p.value);
  });

  it('each found secret is handed over in full, once per place', () => {
    const got: string[] = [];
    redact(PLANTED.map((p) => p.line).join('\n'), (s) => got.push(s.value));
    expect(got).toHaveLength(PLANTED.length);
  });

  it('pieces scanned together come out as each redacted alone', () => {
    const pieces = ['nothing here', ...PLANTED.map((p) => p.line), '', 'x'.repeat(70_000)];
    expect(redactEach(pieces)).toEqual(pieces.map((p) => redact(p)));
  });

  it('a private key cut off before its END line is redacted from its BEGIN line to the end', () => {
    const key = PLANTED.find((p) => p.kind === 'private key')!;
    const cut = `cat id_rsa\n${key.line.slice(0, 200)}`;
    expect(redact(cut)).toBe('cat id_rsa\n----…[redacted: private key]');
  });
});

describe('a bound never cuts a secret in two', () => {
  const openai = PLANTED.find((p) => p.kind === 'OpenAI key')!;
  const bearer = PLANTED.find((p) => p.kind === 'JSON web token')!;

  it('a cut inside a key moves to the key’s end, so the whole key is recognised', () => {
    const text = `${'x '.repeat(50)}OPENAI=${openai.value} and more words after it`;
    const at = text.indexOf(openai.value) + 10;
    expect(cutOutside(text, at)).toBe(text.indexOf(openai.value) + openai.value.length);
  });

  it('a cut between words, or inside a short word, stays where it was', () => {
    const text = `hello world ${openai.value}`;
    expect(cutOutside(text, 5)).toBe(5);
    expect(cutOutside(text, 8)).toBe(8);
  });

  it('a tool result clipped inside a key shows none of it', () => {
    const pad = 'a line of output\n'.repeat(Math.ceil(MAX_RESULT_CHARS / 17));
    for (const p of [openai, bearer]) {
      const text = `${pad.slice(0, MAX_RESULT_CHARS - 20)} ${p.value} trailing`;
      const shown = redact(resultText(text));
      expect(shown).not.toContain(p.value.slice(0, 24));
      expect(shown).toContain(`[redacted: ${p.kind}]`);
    }
  });

  it('a message clipped inside a token assigned to a name keeps none of the token', () => {
    const token = PLANTED.find((p) => p.line.startsWith('STRIPE_SECRET_KEY'))!;
    const text = 'word '.repeat(MAX_TEXT_CHARS).slice(0, MAX_TEXT_CHARS - 30) + token.line;
    const sink = new TurnSink();
    sink.push('user', 'message', '2026-12-01T10:00:00Z', text);
    const [turn] = sink.finish().turns;
    expect(turn!.clipped).toBe(false);
    expect(turn!.text).not.toContain(token.value.slice(0, 12));
    expect(turn!.text.endsWith('…[redacted: secret assigned to a name]')).toBe(true);
  });
});
