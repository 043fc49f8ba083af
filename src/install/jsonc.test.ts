import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSettingsText, settingsText } from './jsonc.js';
import { ChangedMeanwhile, readSettings, writeSettings } from './settings-file.js';

describe('reading settings text', () => {
  it('reads comments and trailing commas where the syntax allows them, leaving strings alone', () => {
    const r = readSettingsText(
      '{\n  // a note\n  "url": "http://x//y", /* "z": 1 */\n  "list": [1, 2,],\n}',
      'jsonc',
    );
    expect(r).toMatchObject({ kind: 'read', value: { url: 'http://x//y', list: [1, 2] } });
  });

  it('says where a file stops reading, by line and column', () => {
    expect(readSettingsText('{\n  "a": 1\n  "b": 2\n}', 'json')).toMatchObject({
      kind: 'bad',
      line: 3,
      column: 3,
    });
    expect(readSettingsText('{\n  "a": 1,\n  /* open', 'jsonc')).toMatchObject({
      kind: 'bad',
      reason: 'a comment is never closed',
      line: 3,
      column: 3,
    });
    expect(readSettingsText('{"a": ', 'json')).toMatchObject({ kind: 'bad', line: 1 });
  });

  it('writes a value back laid out as the file was: indent, line ends, final newline, BOM', () => {
    const r = readSettingsText('\ufeff{\r\n\t"a": [\r\n\t\t1\r\n\t]\r\n}\r\n', 'json');
    expect(r.kind).toBe('read');
    if (r.kind !== 'read') return;
    expect(settingsText({ a: [1], b: true }, r.layout)).toBe(
      '\ufeff{\r\n\t"a": [\r\n\t\t1\r\n\t],\r\n\t"b": true\r\n}\r\n',
    );
  });
});

describe('writing a settings file', () => {
  it('refuses to overwrite an edit made since it was read', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cctop-settings-'));
    try {
      const path = join(dir, 'settings.json');
      writeFileSync(path, '{"a": 1}');
      const file = readSettings(path, 'json');
      writeFileSync(path, '{"a": 2}');
      expect(() => writeSettings(file, '{"a": 3}')).toThrow(ChangedMeanwhile);
      expect(readFileSync(path, 'utf8')).toBe('{"a": 2}');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
