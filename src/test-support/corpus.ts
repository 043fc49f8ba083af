/**
 * Test helpers: the shared corpus (read-only, beside the repository) and throw-away agent homes.
 *
 * The corpus is third-party and never in a clone: no test may need it. A test reads what it asserts
 * from what the repository owns (the lab's recordings in `lab/fixtures/`, the demo history in
 * `demo/home`, records written in the test) and may add cases over `../shared/corpus` where
 * `HAVE_CORPUS` says it is present; those are registered only then, so a clone neither runs nor skips
 * them. `NO_CORPUS_REASON` names the corpus for a suite that still skips without it.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const REPO = join(here, '..', '..');
export const CORPUS = join(REPO, '..', 'shared', 'corpus');
export const HAVE_CORPUS = existsSync(CORPUS);
export const NO_CORPUS_REASON = `the shared corpus is not at ${CORPUS}; corpus tests are skipped`;

export const corpus = (...parts: string[]): string => join(CORPUS, ...parts);

/**
 * How often a cleanup tries again when the directory is still being written (ENOTEMPTY, EBUSY): a
 * cctop a test has just stopped (a killed `serve`, a live table whose tmux session ended) may still
 * be keeping its last state in its cache as it exits. Ten tries 100 ms apart give it a second.
 */
const CLEANUP_RETRIES = 10;
const CLEANUP_RETRY_MS = 100;

/** A fresh temporary directory, removed by the returned cleanup. */
export function tempDir(prefix = 'cctop-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return {
    dir,
    cleanup: () =>
      rmSync(dir, {
        recursive: true,
        force: true,
        maxRetries: CLEANUP_RETRIES,
        retryDelay: CLEANUP_RETRY_MS,
      }),
  };
}

/** A fake `$HOME` with Claude and Codex files laid out where the agents keep them. */
export class FakeHome {
  readonly dir: string;
  readonly cleanup: () => void;

  constructor() {
    const t = tempDir('cctop-home-');
    this.dir = t.dir;
    this.cleanup = t.cleanup;
  }

  /**
   * The home, its own cache and runtime directory (so a command reads no run another test, or the
   * person running the tests, is driving), in UTC.
   */
  get env(): Record<string, string> {
    return {
      HOME: this.dir,
      CCTOP_CACHE_DIR: join(this.dir, '.cache', 'cctop'),
      CCTOP_RUNTIME_DIR: join(this.dir, 'run'),
      TZ: 'UTC',
    };
  }

  claudeFile(slug: string, name: string): string {
    return join(this.dir, '.claude', 'projects', slug, name);
  }

  codexFile(name: string, day = '2025/09/25'): string {
    return join(this.dir, '.codex', 'sessions', day, name);
  }

  /** Write `text` at `path` (inside this home), with an optional mtime. */
  write(path: string, text: string | Buffer, mtimeMs?: number): string {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    if (mtimeMs !== undefined) utimesSync(path, mtimeMs / 1000, mtimeMs / 1000);
    return path;
  }

  /** Copy a corpus file to `path`, keeping an old mtime so it reads as a finished session. */
  copy(from: string, path: string, mtimeMs = Date.parse('2025-10-01T00:00:00Z')): string {
    mkdirSync(dirname(path), { recursive: true });
    copyFileSync(from, path);
    utimesSync(path, mtimeMs / 1000, mtimeMs / 1000);
    return path;
  }

  /** Copy a Claude corpus transcript under a session id of its own. */
  claudeFromCorpus(file: string, slug = '-work-demo', id?: string): string {
    return this.copy(
      corpus('claude-code', 'transcripts', file),
      this.claudeFile(slug, `${id ?? basename(file, '.jsonl')}.jsonl`),
    );
  }

  codexFromCorpus(file: string): string {
    return this.copy(corpus('codex', 'rollouts', file), this.codexFile(basename(file)));
  }
}

/** JSON lines from objects. */
export const jsonl = (...records: unknown[]): string => records.map((r) => `${JSON.stringify(r)}\n`).join('');

/**
 * One Claude Code assistant response in session `s` (cwd `/w`) carrying only usage: the smallest
 * record that moves a session's tokens, for tests of reading, tailing and refreshing.
 */
export const claudeResponse = (id: string, output: number, at: string, input = 1): string =>
  jsonl({
    type: 'assistant',
    sessionId: 's',
    cwd: '/w',
    uuid: `u-${id}`,
    timestamp: at,
    requestId: `r-${id}`,
    message: {
      id: `m-${id}`,
      role: 'assistant',
      model: 'claude-sonnet-4-5-20250929',
      content: [],
      usage: { input_tokens: input, output_tokens: output },
    },
  });
