/**
 * `cctop statusline` against the real Claude Code the lab installs (lab/agents.json): the CLI ships
 * the description of the JSON it writes on its status line's stdin (it teaches its own statusline
 * setup agent with it). That description must still name every field cctop reads, with the types
 * cctop reads them as (`resets_at` in epoch seconds), and a JSON of that shape must give the line.
 *
 * A status line is only run by Claude Code's interactive screen, which the lab's headless runs do
 * not open: this checks the contract from the binary itself, not a recorded run. Skipped, saying
 * why, when the pinned CLI is not installed (`npm run agents`).
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO, tempDir } from '../../src/test-support/corpus.js';
import { agentBin, PINS } from '../../src/test-support/lab/agents.js';

const MARKER = 'The statusLine command will receive the following JSON input via stdin:';
/** The description is about 6 KiB; what follows the marker is read up to this. */
const DESCRIPTION_BYTES = 16 * 1024;
/** The binary is read in pieces of this size (it is a few hundred MiB). */
const CHUNK_BYTES = 16 * 1024 * 1024;

/** The files of the installed package that may hold the description: its native binary, or its cli.js. */
function candidates(bin: string): string[] {
  const scope = join(dirname(dirname(bin)), '@anthropic-ai');
  if (!existsSync(scope)) return [];
  const out: string[] = [];
  for (const pkg of readdirSync(scope).filter((d) => d.startsWith('claude-code'))) {
    for (const name of ['claude', 'cli.js', join('bin', 'claude.exe')]) {
      const p = join(scope, pkg, name);
      if (existsSync(p) && statSync(p).size > 1024 * 1024) out.push(p);
    }
  }
  return out;
}

/** The text after MARKER in `file`, or null: read in overlapping pieces, never whole. */
function descriptionIn(file: string): string | null {
  const fd = openSync(file, 'r');
  try {
    const size = statSync(file).size;
    const buf = Buffer.alloc(CHUNK_BYTES + DESCRIPTION_BYTES);
    for (let at = 0; at < size; at += CHUNK_BYTES) {
      const n = readSync(fd, buf, 0, buf.length, at);
      const i = buf.subarray(0, n).indexOf(MARKER, 0, 'latin1');
      if (i >= 0) {
        const tail = Buffer.alloc(DESCRIPTION_BYTES);
        const m = readSync(fd, tail, 0, tail.length, at + i);
        return tail.subarray(0, m).toString('utf8');
      }
    }
    return null;
  } finally {
    closeSync(fd);
  }
}

const bin = agentBin('claude');
const pin = `${PINS.claude.package}@${PINS.claude.version}`;
if (!bin) console.warn(`statusline contract skipped: ${pin} is not installed (npm run agents)`);

describe.skipIf(!bin)(
  `cctop statusline and the status line input of ${pin}${bin ? '' : ` (skipped: ${pin} is not installed (npm run agents))`}`,
  () => {
    const description = bin
      ? (candidates(bin)
          .map(descriptionIn)
          .find((d) => d !== null) ?? null)
      : null;

    it('Claude Code still describes every field cctop reads, with the types cctop reads them as', () => {
      expect(description, 'the statusLine description in the installed CLI').not.toBeNull();
      const d = description!;
      for (const field of [
        '"session_id"',
        '"transcript_path"',
        '"model": {',
        '"id"',
        '"workspace": {',
        '"current_dir"',
      ])
        expect(d, field).toContain(field);
      expect(d).toMatch(
        /"context_window": \{[\s\S]*"context_window_size": number[\s\S]*"used_percentage": number \| null/,
      );
      expect(d).toMatch(
        /"rate_limits": \{[\s\S]*"five_hour": \{[\s\S]*"used_percentage": number[\s\S]*"seven_day": \{/,
      );
      expect(d).toMatch(/"resets_at": number\s+\/\/ Unix epoch seconds/);
    });

    it('a JSON of that shape gives the line: model, context, and the account quota with its reset', () => {
      const t = tempDir('cctop-statusline-lab-');
      try {
        const now = Math.floor(Date.now() / 1000);
        const input = {
          session_id: '0b4b7a52-5d0b-4a43-9d4c-1f6a2b3c4d5e',
          transcript_path: join(t.dir, 'missing.jsonl'),
          cwd: '/w/app',
          model: { id: 'claude-opus-4-5-20251101', display_name: 'Opus 4.5' },
          workspace: { current_dir: '/w/app', project_dir: '/w/app', added_dirs: [] },
          version: PINS.claude.version,
          context_window: {
            total_input_tokens: 84_000,
            total_output_tokens: 900,
            context_window_size: 200_000,
            current_usage: {
              input_tokens: 10,
              output_tokens: 900,
              cache_creation_input_tokens: 1000,
              cache_read_input_tokens: 82_990,
            },
            used_percentage: 42,
            remaining_percentage: 58,
          },
          rate_limits: {
            five_hour: { used_percentage: 37, resets_at: now + 2 * 3600 },
            seven_day: { used_percentage: 12, resets_at: now + 3 * 86_400 },
          },
          a_field_a_later_version_adds: { anything: true },
        };
        const r = spawnSync(process.execPath, [join(REPO, 'dist', 'cli.js'), 'statusline'], {
          input: JSON.stringify(input),
          env: {
            PATH: process.env.PATH ?? '',
            HOME: t.dir,
            CCTOP_CACHE_DIR: join(t.dir, 'cache'),
            NO_COLOR: '1',
          },
          encoding: 'utf8',
        });
        expect(r.status).toBe(0);
        expect(r.stdout).toMatch(/^opus-4\.5 · .*ctx \d+%.* · 5h 37% ↻(1h5\d|2h00) · 7d 12% ↻7\dh\d\d\n$/);
      } finally {
        t.cleanup();
      }
    });
  },
);
