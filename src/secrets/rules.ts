/**
 * Which secretlint rules find secrets here: the package `detect.ts` loads by name, and its identity
 * as the index's build key counts it (`index/version.ts`). A title is redacted once, when a build
 * stores it; an upgrade of the rules that finds a secret the old ones missed must retire what the old
 * ones stored, or that secret stays in view until its transcript changes.
 *
 * The identity is the preset's version and the versions of the rules it bundles (its package.json
 * lists them): every release of a rule is released in a new preset. Read when the build's versions
 * are worked out (`npm run build`, or a run of a tree built without them), never on a warm run.
 *
 * Not here: loading or running the rules (`detect.ts`).
 */
import { readFileSync } from 'node:fs';
import { installedPackage } from '../installed-package.js';

/** secretlint's recommended preset: the rules `detect.ts` runs. */
export const PRESET = '@secretlint/secretlint-rule-preset-recommend';

/** A rule's package, as the preset's package.json names the rules it bundles. */
const RULE_PACKAGE = /^@secretlint\/secretlint-rule-/;

/**
 * The preset's name and version, then each rule it bundles with its version, sorted: one line,
 * `@secretlint/secretlint-rule-preset-recommend@11.7.1 aws@11.7.1 …`. When the preset is not
 * installed where `from` looks (the rules cannot load, and redaction then hides all of the text), the
 * identity says so, so that installing it later retires what was stored without it.
 */
export function rulesIdentity(from: string = import.meta.url): string {
  const pkg = installedPackage(from, PRESET);
  if (pkg === null) return `${PRESET} not installed`;
  const rules: string[] = [];
  for (const [name, version] of Object.entries(bundledRules(pkg.file))) {
    if (RULE_PACKAGE.test(name) && name !== PRESET)
      rules.push(`${name.replace(RULE_PACKAGE, '')}@${version}`);
  }
  return [`${PRESET}@${pkg.version ?? 'unversioned'}`, ...rules.sort()].join(' ');
}

/** The packages a package.json lists as it is built from (where a preset names the rules it bundles), by name. */
function bundledRules(file: string): Record<string, string> {
  let pkg: unknown;
  try {
    pkg = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    // `installedPackage` just read it: a file replaced in between says nothing of its rules.
    return {};
  }
  const out: Record<string, string> = {};
  for (const field of ['dependencies', 'devDependencies']) {
    const deps: unknown = typeof pkg === 'object' && pkg !== null ? Reflect.get(pkg, field) : undefined;
    if (typeof deps !== 'object' || deps === null) continue;
    for (const [name, version] of Object.entries(deps)) if (typeof version === 'string') out[name] = version;
  }
  return out;
}
