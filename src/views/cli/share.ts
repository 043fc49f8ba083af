/**
 * `cctop handoff <session> --to HARNESS` and `cctop export <session>`: a session taken out of its
 * harness, to another harness (a brief and the command that starts the other agent on it) or to a
 * person (the whole conversation as Markdown or JSON).
 *
 * `handoff` writes the brief to a file (cctop's cache, or `--out`), then prints the command, or with
 * `--run` runs it in the session's directory on this terminal and exits with its code. The command
 * passes a short sentence of cctop's own that points at the file (`share/targets.ts`), so what the
 * transcript says never reaches a shell.
 *
 * Not here: what the brief says (`share/brief.ts`), how an export reads (`export.ts`).
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Snapshot } from '../../index/snapshot.js';
import type { SessionDoc } from '../../model/document.js';
import { cacheDir } from '../../paths.js';
import { providerById } from '../../providers/index.js';
import { placeById } from '../../providers/places.js';
import { reportFor } from '../../report/of-snapshot.js';
import { renderBrief } from '../../share/brief.js';
import { gatherFacts } from '../../share/facts.js';
import {
  defaultTarget,
  HANDOFF_TARGETS,
  type HandoffTarget,
  handoffPrompt,
  isHandoffTarget,
  shellLine,
  startWords,
} from '../../share/targets.js';
import { safeLine, terminalJson } from '../terminal-text.js';
import {
  EXPORT_FORMATS,
  type ExportFormat,
  isExportFormat,
  type SubagentRef,
  writeExport,
} from './export.js';
import type { Io } from './main.js';
import { UsageError } from './options.js';
import { chosenSession } from './session.js';

/** What both commands need to find their session. */
export interface SessionSource {
  query: string | null;
  snap: Snapshot;
  whole: () => Promise<Snapshot>;
  nothing: () => Promise<string>;
}

/** A name for a file from a session id: ids come from transcripts, so only plain characters are kept. */
const fileSafe = (id: string): string => id.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 100);

/** Where the brief goes without `--out`: cctop's cache, one file per session and target. */
export const briefPath = (env: Io['env'], s: SessionDoc, target: HandoffTarget): string =>
  join(cacheDir(env), 'handoff', `${s.provider}-${fileSafe(s.id)}-to-${target}.md`);

function targetOf(value: unknown, s: SessionDoc): HandoffTarget {
  if (value === undefined) return defaultTarget(s.provider);
  if (typeof value === 'string' && isHandoffTarget(value)) return value;
  throw new UsageError(`--to ${safeLine(String(value))}: expected one of ${HANDOFF_TARGETS.join(', ')}`);
}

/** Write `text` where only this user reads it: the brief quotes the conversation. */
function writePrivate(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, text, { mode: 0o600 });
}

export async function handoffCommand(
  io: Io,
  src: SessionSource,
  values: Record<string, unknown>,
): Promise<number> {
  const s = await chosenSession(io, src.query, src.snap, src.nothing);
  if (s === null) return 2;
  const target = targetOf(values.to, s);
  const report = await reportFor(s, src.snap, src.whole);
  const nowMs = Date.now();
  const brief = renderBrief(gatherFacts(report, providerById(s.provider)), target, nowMs);
  const path = resolve(typeof values.out === 'string' ? values.out : briefPath(io.env, s, target));
  writePrivate(path, brief);
  const words = startWords(target, handoffPrompt(s.provider, path), dirname(path));
  const line = shellLine(s.project, words);
  if (values.json) {
    io.out(
      terminalJson({
        brief: path,
        bytes: Buffer.byteLength(brief),
        to: target,
        cwd: s.project,
        command: words,
        line,
      }),
    );
    return 0;
  }
  if (!values.run) {
    io.out(`Brief: ${safeLine(path)} (${Buffer.byteLength(brief)} bytes)`);
    io.out(`Start ${placeById(target).label} on it: ${line}`);
    return 0;
  }
  return runHere(io, s, words);
}

/** Run the other harness in the session's directory, on this terminal, and pass on its exit code. */
async function runHere(io: Io, s: SessionDoc, words: readonly string[]): Promise<number> {
  const cwd = s.project;
  if (cwd === null || !statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) {
    io.err(
      `cctop: the session's directory ${cwd === null ? 'is not recorded' : `${safeLine(cwd)} is gone`}; run the command without --run from where the work is`,
    );
    return 1;
  }
  const [bin, ...args] = words;
  const child = spawn(bin!, args, { cwd, stdio: 'inherit', env: { ...io.env } });
  // Ctrl-C belongs to the agent now: it reaches the child through the terminal; cctop only waits.
  const ignore = () => {};
  process.on('SIGINT', ignore);
  try {
    return await new Promise<number>((done) => {
      child.on('error', (err: NodeJS.ErrnoException) => {
        io.err(
          err.code === 'ENOENT'
            ? `cctop: ${bin} is not on PATH; install it, or run the command without --run where it is`
            : `cctop: could not start ${bin}: ${err.message}`,
        );
        done(1);
      });
      child.on('close', (code, signal) => done(code ?? (signal ? 1 : 0)));
    });
  } finally {
    process.off('SIGINT', ignore);
  }
}

/** The subagents to export after the session's own conversation: the report names them. */
async function subagentsOf(s: SessionDoc, src: SessionSource): Promise<SubagentRef[]> {
  const report = await reportFor(s, src.snap, src.whole);
  return report.subagents.map((a) => ({ agent: a.agent, type: a.type, title: a.title }));
}

function formatOf(value: unknown): ExportFormat {
  if (value === undefined) return 'markdown';
  if (typeof value === 'string' && isExportFormat(value)) return value;
  throw new UsageError(`--format ${safeLine(String(value))}: expected ${EXPORT_FORMATS.join(' or ')}`);
}

export async function exportCommand(
  io: Io,
  src: SessionSource,
  values: Record<string, unknown>,
): Promise<number> {
  const format = formatOf(values.format);
  const s = await chosenSession(io, src.query, src.snap, src.nothing);
  if (s === null) return 2;
  const subagents = values.subagents ? await subagentsOf(s, src) : [];
  const out = typeof values.out === 'string' ? resolve(values.out) : null;
  const fd = out === null ? null : openSync(out, 'w', 0o600);
  const write =
    fd !== null
      ? (chunk: string) => writeSync(fd, chunk)
      : io.write
        ? (chunk: string) => io.write!([chunk])
        : (chunk: string) => io.out(chunk.replace(/\n$/, ''));
  let done: ReturnType<typeof writeExport>;
  try {
    done = writeExport({
      session: s,
      provider: providerById(s.provider),
      subagents,
      format,
      write,
      nowMs: Date.now(),
    });
  } finally {
    if (fd !== null) closeSync(fd);
  }
  for (const u of done.unread)
    io.err(
      `cctop: ${u.agent === null ? 'the conversation' : `subagent ${safeLine(u.agent)}`}: ${safeLine(u.note)}`,
    );
  if (out !== null) io.out(`Wrote ${done.turns} turns to ${safeLine(out)}`);
  return 0;
}
