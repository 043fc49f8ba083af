#!/usr/bin/env node
// Run by `npm run build` after the compiler: computes the parser and build versions of the compiled
// code (`dist/index/version.js` says what they are) and writes them into a module beside it, after
// the compiler's (a run trusts them only while no compiled module is newer). A warm run then reads
// one small module instead of the 70 the versions digest. Writing to a temporary name and renaming keeps a run that
// starts meanwhile from reading half a module.
import { renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const { BUILT_VERSIONS_MODULE, computedVersions } = await import(join(dist, 'index', 'version.js'));
const versions = computedVersions();
const out = join(dist, 'index', BUILT_VERSIONS_MODULE);
const text = `// Written by scripts/code-versions.mjs during \`npm run build\`; see src/index/version.ts.\nexport const VERSIONS = ${JSON.stringify(versions, null, 2)};\n`;
writeFileSync(`${out}.tmp`, text);
renameSync(`${out}.tmp`, out);
