import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../paths.js';

export function version(): string {
  try {
    return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string })
      .version;
  } catch {
    return 'unknown';
  }
}
