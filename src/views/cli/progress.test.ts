/**
 * A first build shows how far it is on a terminal and says nothing on a pipe: the built cctop in a
 * real pseudo-terminal (util-linux `script`, which records every byte written to the terminal, so a
 * line drawn and then cleared is still seen), and the same command with its stderr on a pipe.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionDocument } from '../../model/document.js';
import { bigHistory } from '../../test-support/big-history.js';
import { CLI, runCli } from '../../test-support/cli-run.js';
import type { FakeHome } from '../../test-support/corpus.js';
import { envWords } from '../../test-support/terminal.js';
import { PROGRESS_MIN_BYTES } from './progress.js';

const HAVE_SCRIPT = spawnSync('script', ['--version']).status === 0;

/** Transcripts of this size each, enough of them to be over the bound the progress shows from. */
const FILE_BYTES = 512 << 10;
const FILES = Math.ceil((PROGRESS_MIN_BYTES * 1.5) / FILE_BYTES);

const history = (): FakeHome => bigHistory(FILES, FILE_BYTES);

const envOf = (home: FakeHome): Record<string, string> => ({
  ...home.env,
  PATH: process.env.PATH ?? '/usr/bin:/bin',
});

describe.skipIf(!HAVE_SCRIPT)(
  `a first build's progress${HAVE_SCRIPT ? '' : ' (skipped: util-linux script is not installed; apt-get install bsdutils)'}`,
  () => {
    it('on a terminal, stderr counts the files and bytes read and clears its line before the answer; stdout is the document alone', () => {
      const home = history();
      try {
        const out = join(home.dir, 'out.json');
        const typescript = join(home.dir, 'terminal.log');
        const command = `env -i ${envWords(envOf(home))} '${process.execPath}' '${CLI}' --json --no-cache > '${out}'`;
        const ran = spawnSync('script', ['-q', '-e', '-c', command, typescript], {
          encoding: 'utf8',
          timeout: 120_000,
        });
        expect(ran.status).toBe(0);
        const seen = readFileSync(typescript, 'latin1');
        const mib = Math.round((FILES * FILE_BYTES) / (1 << 20));
        expect(seen).toContain(`cctop: reading transcripts: 0 of ${FILES} files, 0 of ${mib} MiB`);
        const last = `cctop: reading transcripts: ${FILES} of ${FILES} files, ${mib} of ${mib} MiB`;
        // The last thing cctop writes to the terminal clears that line, so the prompt starts clean
        // (after it, only `script`'s own footer, on a line of its own).
        const tail = seen.slice(seen.lastIndexOf('cctop: '));
        expect(tail.split('\n')[0]).toBe(`${last}\r\u001b[K`);
        const doc = JSON.parse(readFileSync(out, 'utf8')) as SessionDocument;
        expect(doc.sessions).toHaveLength(FILES);
      } finally {
        home.cleanup();
      }
    }, 180_000);
  },
);

describe('a first build on a pipe', () => {
  it('writes no progress to stderr', async () => {
    const home = history();
    try {
      const ran = await runCli(['--json', '--no-cache'], envOf(home));
      expect(ran.code).toBe(0);
      expect(ran.err).toBe('');
      expect((JSON.parse(ran.out) as SessionDocument).sessions).toHaveLength(FILES);
    } finally {
      home.cleanup();
    }
  }, 180_000);
});
