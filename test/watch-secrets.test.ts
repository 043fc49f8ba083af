/**
 * `cctop watch` tells the person when a credential is written into a session it watches: the
 * webhook hears the session and the kind once, and no value, on the wire or on cctop's own output.
 * Runs the built CLI against a Claude Code transcript written turn by turn, as 2.1.328 writes it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeRecord, prompt, textAnswer } from '../src/test-support/claude-records.js';
import { CLI } from '../src/test-support/cli-run.js';
import { FakeHome } from '../src/test-support/corpus.js';
import { plantedSecrets } from '../src/test-support/planted-secrets.js';

const ID = '5ec7e75a-0000-4000-8000-0000000000b2';
const MODEL = 'claude-sonnet-4-5-20250929';
const PLANTED = plantedSecrets();
const KEY = PLANTED.find((p) => p.kind === 'GitHub token')!;

/** How long the watcher has to tell it: several of its passes (5 s apart at most) and reads (20 s). */
const BUDGET_MS = 90_000;
/** How often the test writes a harmless turn while it waits, so the watcher sees the session write. */
const POKE_MS = 1_000;

let home: FakeHome;
let hooks: Server;
let webhook: string;
const posted: Record<string, unknown>[] = [];
let raw = '';

beforeAll(async () => {
  home = new FakeHome();
  hooks = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString('utf8');
    });
    req.on('end', () => {
      raw += body;
      try {
        posted.push(JSON.parse(body) as Record<string, unknown>);
      } catch {
        posted.push({});
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => hooks.listen(0, '127.0.0.1', resolve));
  webhook = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/notify`;
});
afterAll(async () => {
  await new Promise((r) => hooks.close(r));
  home.cleanup();
});

describe('cctop watch and secrets', () => {
  it(
    'a credential written into a watched session is told to the webhook by kind, without its value',
    async () => {
      const file = home.write(
        home.claudeFile('-work-shop', `${ID}.jsonl`),
        claudeRecord(ID, '/work/shop', Date.now() - 60_000, 'u1', prompt('set up the deploy')),
      );
      const runtime = join(home.dir, 'runtime');
      mkdirSync(runtime, { mode: 0o700 });
      const env = { ...home.env, CCTOP_RUNTIME_DIR: runtime };
      const watch: ChildProcess = spawn(
        process.execPath,
        [CLI, 'watch', '--notify', webhook, '--no-desktop', '--delay', '0.5'],
        { env, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let out = '';
      watch.stdout?.on('data', (c: Buffer) => {
        out += c.toString('utf8');
      });
      watch.stderr?.on('data', (c: Buffer) => {
        out += c.toString('utf8');
      });
      // The secret's turn is stamped ahead of the clock, so it is news whenever the watcher first
      // looked (what a session held at the watcher's first sight is not); the harmless turns after it
      // make sure the watcher sees the session write after that first sight.
      const startedMs = Date.now();
      appendFileSync(
        file,
        claudeRecord(
          ID,
          '/work/shop',
          startedMs + 60_000,
          'a1',
          textAnswer(1, `Token: ${KEY.line}`, MODEL, 10, 5),
        ),
      );
      let n = 2;
      const told = () => posted.filter((p) => p.kind === 'secret');
      try {
        while (told().length === 0 && Date.now() - startedMs < BUDGET_MS) {
          await new Promise((r) => setTimeout(r, POKE_MS));
          appendFileSync(
            file,
            claudeRecord(
              ID,
              '/work/shop',
              startedMs + 60_000 + n * 1000,
              `a${n}`,
              textAnswer(n, 'Still deploying.', MODEL, 10, 5),
            ),
          );
          n++;
        }
        expect(told(), out).toHaveLength(1);
        const [notice] = told();
        expect(notice).toMatchObject({
          kind: 'secret',
          session: { provider: 'claude', id: ID },
          title: 'A secret in: set up the deploy',
        });
        expect(String(notice!.text)).toContain('GitHub token written into the transcript');
        expect(raw).not.toContain(KEY.value);
        expect(out).not.toContain(KEY.value);
      } finally {
        watch.kill('SIGTERM');
        await new Promise((r) => watch.once('close', r));
      }
    },
    BUDGET_MS + 30_000,
  );
});
