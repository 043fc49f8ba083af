import { describe, expect, it } from 'vitest';
import { parseConfig } from './config.js';
import { defaultConfig } from './types.js';
import { dashboardUrl, MAX_URL_CHARS, shownUrl, webhookUrl } from './urls.js';

const parsed = (text: string) => parseConfig(text, '/cfg/config.toml', { HOME: '/home/me' });

describe('the [notify] section', () => {
  it('by default: no webhook, desktop notifications on, json, no links', () => {
    expect(defaultConfig().notify).toEqual({ url: null, format: 'json', desktop: true, dashboard: null });
  });

  it('the documented example reads without a warning', () => {
    const loaded = parsed(`
[notify]
url = "https://ntfy.sh/cctop-7f3a9c"
format = "ntfy"
desktop = false
dashboard = "http://127.0.0.1:7777/"
`);
    expect(loaded.warnings).toEqual([]);
    expect(loaded.config.notify).toEqual({
      url: 'https://ntfy.sh/cctop-7f3a9c',
      format: 'ntfy',
      desktop: false,
      dashboard: 'http://127.0.0.1:7777',
    });
  });

  it('each wrong setting warns with its line and keeps its default; the others apply', () => {
    const loaded = parsed(
      '[notify]\nurl = "ftp://example.test/x"\nformat = "xml"\ndesktop = "yes"\ndashboard = 7777\ncolour = 1\n',
    );
    expect(loaded.config.notify).toEqual(defaultConfig().notify);
    expect(loaded.warnings).toEqual([
      '/cfg/config.toml line 6: key "notify.colour" is not a cctop setting',
      '/cfg/config.toml line 2: notify.url = "ftp://example.test/x": ftp: is not http or https; no webhook is sent',
      '/cfg/config.toml line 3: notify.format = "xml": expected json, ntfy or slack; json is sent',
      '/cfg/config.toml line 4: notify.desktop = "yes": expected true or false; it stays on',
      '/cfg/config.toml line 5: notify.dashboard = 7777: expected text; notices carry no link',
    ]);
  });

  it('a [notify] that is not a table warns and keeps the defaults', () => {
    const loaded = parsed('notify = "https://ntfy.sh/x"\n');
    expect(loaded.config.notify).toEqual(defaultConfig().notify);
    expect(loaded.warnings[0]).toMatch(/notify is "https:\/\/ntfy\.sh\/x", not a table/);
  });
});

describe('notification addresses', () => {
  it('a webhook is an http(s) URL without credentials, within the bound', () => {
    expect(webhookUrl(' https://Example.TEST/hook?t=1 ')).toEqual({
      ok: true,
      url: 'https://example.test/hook?t=1',
    });
    expect(webhookUrl('javascript:alert(1)').ok).toBe(false);
    expect(webhookUrl('not a url').ok).toBe(false);
    expect(webhookUrl('https://me:secret@example.test/').ok).toBe(false);
    expect(webhookUrl(`https://example.test/${'x'.repeat(MAX_URL_CHARS)}`).ok).toBe(false);
  });

  it('the dashboard is a base address: no trailing slash, query or fragment', () => {
    expect(dashboardUrl('http://127.0.0.1:7777/?t=abc#x')).toEqual({
      ok: true,
      url: 'http://127.0.0.1:7777',
    });
    expect(dashboardUrl('https://box.example/cctop/')).toEqual({
      ok: true,
      url: 'https://box.example/cctop',
    });
  });

  it('a webhook is shown by scheme and host only: its path is the secret', () => {
    expect(shownUrl('https://hooks.slack.com/services/T0/B0/SECRET')).toBe('https://hooks.slack.com/…');
    expect(shownUrl('http://127.0.0.1:8080/')).toBe('http://127.0.0.1:8080');
  });
});
