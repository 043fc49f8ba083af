#!/usr/bin/env node
// The CPU of reading transcripts, alone: every Claude and Codex transcript of a history through the
// providers' own `parse()` (the byte extractors, the line parsers, the drift samples), in this one
// process and thread, with no index, no SQLite and no sessions built. A/B against another build, the
// builds alternating run after run, each run a fresh process.
//
//   node bench/parse-cpu.mjs --history DIR [--base OTHER/dist] [--head THIS/dist] [--runs 5] [--passes 3]
//   node bench/parse-cpu.mjs --history DIR --mib 10 [--base OTHER/dist] [--runs 10]
//
// `--mib N` reads only Claude transcripts, the first ones in path order until N MiB, once per fresh
// process (`--passes` defaults to 1): what a one-shot run that finds ten transcripts grown by a
// megabyte each pays, parsing them mostly in V8's interpreter and baseline tiers before the
// optimising compiler catches up.
//
// Each run reads the history `--passes` times: the first pass is what a cold build pays (the code is
// still being compiled while it runs), the later ones what the same code costs once compiled. CPU
// seconds are the whole process's (user + system, V8's compiler threads included), from
// `process.cpuUsage`; the load average is printed before and after, since a loaded machine moves
// CPU time too. Means are printed per build and pass.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = {};
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a.startsWith('--')) args[a.slice(2)] = process.argv[++i];
}

if (args.child) {
  // One run: read the history `passes` times with the build at `child`, print each pass's CPU seconds.
  const dist = args.child;
  const home = args.history;
  const claude = await import(join(dist, 'providers', 'claude', 'parse.js'));
  const codex = await import(join(dist, 'providers', 'codex', 'parse.js'));
  const under = (root) => {
    try {
      return readdirSync(root, { recursive: true })
        .filter((f) => f.endsWith('.jsonl'))
        .map((f) => join(root, f));
    } catch {
      // A history without this harness: nothing of it to read.
      return [];
    }
  };
  const claudeFiles = under(join(home, '.claude', 'projects')).map((path) => ({
    provider: 'claude',
    path,
    parse: claude.parse,
  }));
  let files = [
    ...claudeFiles,
    ...under(join(home, '.codex', 'sessions')).map((path) => ({
      provider: 'codex',
      path,
      parse: codex.parse,
    })),
  ];
  if (args.mib !== undefined) {
    // The first Claude transcripts in path order, up to the bytes asked for.
    const budget = Number(args.mib) * 2 ** 20;
    let bytes = 0;
    files = [];
    for (const f of claudeFiles.sort((a, b) => (a.path < b.path ? -1 : 1))) {
      if (bytes >= budget) break;
      bytes += statSync(f.path).size;
      files.push(f);
    }
  }
  const out = [];
  for (let pass = 0; pass < Number(args.passes ?? 3); pass++) {
    const t0 = process.cpuUsage();
    let lines = 0;
    for (const f of files) {
      const st = statSync(f.path);
      const file = {
        provider: f.provider,
        path: f.path,
        root: home,
        sessionHint: null,
        role: 'main',
        size: st.size,
        mtimeMs: st.mtimeMs,
        ino: st.ino,
      };
      lines += f.parse(file, null).facts.lines;
    }
    const u = process.cpuUsage(t0);
    out.push({ cpu: (u.user + u.system) / 1e6, lines, files: files.length });
  }
  process.stdout.write(JSON.stringify(out));
  process.exit(0);
}

const history = args.history;
if (!history) throw new Error('--history DIR (a history from bench/gen-history.mjs)');
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const builds = { head: args.head ?? join(root, 'dist'), ...(args.base ? { base: args.base } : {}) };
const runs = Number(args.runs ?? 5);
const passes = Number(args.passes ?? (args.mib !== undefined ? 1 : 3));
const results = Object.fromEntries(Object.keys(builds).map((k) => [k, []]));
console.log(
  `load before: ${loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')}`,
);
for (let r = 0; r < runs; r++) {
  for (const [name, dist] of Object.entries(builds)) {
    const argv = [
      fileURLToPath(import.meta.url),
      '--child',
      dist,
      '--history',
      history,
      '--passes',
      String(passes),
      ...(args.mib !== undefined ? ['--mib', args.mib] : []),
    ];
    const child = spawnSync(process.execPath, argv, { encoding: 'utf8' });
    if (child.status !== 0) throw new Error(`${name} exited ${child.status}: ${child.stderr.slice(-500)}`);
    const out = JSON.parse(child.stdout);
    results[name].push(out);
    console.log(
      `run ${r + 1} ${name}: ${out[0].files} files, ${out[0].lines} lines, CPU s by pass ${out.map((p) => p.cpu.toFixed(3)).join(' ')}`,
    );
  }
}
console.log(
  `load after: ${loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')}`,
);
for (const [name, all] of Object.entries(results)) {
  const mean = (pass) => all.reduce((s, out) => s + out[pass].cpu, 0) / all.length;
  const later = passes > 1 ? Array.from({ length: passes - 1 }, (_, k) => mean(k + 1)) : [];
  const rest = later.length
    ? ` later passes ${(later.reduce((a, b) => a + b) / later.length).toFixed(3)}`
    : '';
  console.log(`mean ${name}: first pass ${mean(0).toFixed(3)} CPU s${rest} (${all.length} runs)`);
}
