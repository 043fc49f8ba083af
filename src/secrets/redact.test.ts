import { describe, expect, it } from 'vitest';
import { plantedSecrets } from '../test-support/planted-secrets.js';
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
