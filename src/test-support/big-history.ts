/**
 * A history big enough for a build to take many batches and to show its progress: `files` Claude
 * sessions of about `fileBytes` each, one minute apart (the last newest), each made of responses
 * carrying a long text. Written here, so the tests need nothing outside the repository.
 *
 * Not here: what a test asserts of it.
 */
import { FakeHome, jsonl } from './corpus.js';

/** Each response's text: long enough that a few make a file, short enough to be many lines. */
const TEXT_BYTES = 64 << 10;

export const BIG_HISTORY_START = Date.parse('2026-12-01T10:00:00Z');

export function bigHistory(files: number, fileBytes: number): FakeHome {
  const home = new FakeHome();
  for (let i = 0; i < files; i++) {
    const line = (k: number) =>
      jsonl({
        type: 'assistant',
        sessionId: `s${i}`,
        cwd: '/w',
        uuid: `u-${i}-${k}`,
        timestamp: new Date(BIG_HISTORY_START + i * 60_000 + k).toISOString(),
        requestId: `r-${i}-${k}`,
        message: {
          id: `m-${i}-${k}`,
          role: 'assistant',
          model: 'claude-sonnet-4-5-20250929',
          content: [{ type: 'text', text: 'x'.repeat(TEXT_BYTES) }],
          usage: { input_tokens: 10, output_tokens: 20 },
        },
      });
    let text = '';
    for (let k = 0; text.length < fileBytes; k++) text += line(k);
    home.write(home.claudeFile('-w', `s${i}.jsonl`), text);
  }
  return home;
}
