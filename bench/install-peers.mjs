#!/usr/bin/env node
// Installs the peers cctop is measured against into .peers/ (outside package.json: their builds for
// other platforms are not all on every registry, which would break `npm ci` for everyone).
//
//   node bench/install-peers.mjs     → .peers/node_modules/@ccusage/ccusage-<platform>-<arch>/bin/ccusage
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CCUSAGE_VERSION = '20.0.24';
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const prefix = join(root, '.peers');
const pkg = `@ccusage/ccusage-${process.platform}-${process.arch}`;
const bin = join(prefix, 'node_modules', pkg, 'bin', 'ccusage');

if (!existsSync(bin)) {
  mkdirSync(prefix, { recursive: true });
  execFileSync(
    'npm',
    [
      'install',
      '--no-save',
      '--no-package-lock',
      '--no-audit',
      '--no-fund',
      '--prefix',
      prefix,
      `${pkg}@${CCUSAGE_VERSION}`,
    ],
    {
      stdio: 'inherit',
    },
  );
}
// npm does not keep the mode of a file that is not a declared `bin`; ccusage's launcher sets it too.
chmodSync(bin, 0o755);
console.log(bin);
