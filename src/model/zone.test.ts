import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../test-support/corpus.js';
import { keepZoneNameIn, systemTimeZone } from './zone.js';

describe('the system time zone name', () => {
  const t = tempDir();
  const memo = join(t.dir, 'cache', 'zone.json');
  afterEach(() => keepZoneNameIn(null));

  it('is what Intl says, and is kept for the next run under what decided it', () => {
    keepZoneNameIn(memo);
    expect(systemTimeZone()).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
    const kept = JSON.parse(readFileSync(memo, 'utf8')) as { key: string; name: string };
    expect(kept.name).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
    // The next run reads it instead of asking Intl (shown by a name only the file could give).
    writeFileSync(memo, JSON.stringify({ key: kept.key, name: 'Kept/Zone' }));
    expect(systemTimeZone()).toBe('Kept/Zone');
  });

  it('asks Intl again when TZ changes, or when the kept file is damaged', () => {
    keepZoneNameIn(memo);
    writeFileSync(memo, JSON.stringify({ key: 'TZ that is not this one', name: 'Kept/Zone' }));
    expect(systemTimeZone()).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
    writeFileSync(memo, '{"key":');
    expect(systemTimeZone()).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
  });
  afterAll(() => t.cleanup());
});
