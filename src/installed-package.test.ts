import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { installedPackage } from './installed-package.js';

describe('an installed package', () => {
  it("is found with its version even where it exports no package.json, as the price catalogue's package does", () => {
    const req = createRequire(import.meta.url);
    expect(() => req.resolve('@pydantic/genai-prices/package.json')).toThrow();
    const found = installedPackage(import.meta.url, '@pydantic/genai-prices');
    expect(found).not.toBeNull();
    const pkg = JSON.parse(readFileSync(found!.file, 'utf8'));
    expect(pkg.name).toBe('@pydantic/genai-prices');
    expect(found!.version).toBe(pkg.version);
    expect(found!.version).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('is found from its entry one or more folders down, and is null when it is not installed', () => {
    const sqlite = installedPackage(import.meta.url, 'better-sqlite3');
    expect(sqlite?.file).toMatch(/node_modules\/better-sqlite3\/package\.json$/);
    expect(installedPackage(import.meta.url, 'no-such-package-cctop-test')).toBeNull();
  });
});
