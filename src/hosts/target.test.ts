import { describe, expect, it } from 'vitest';
import { MAX_HOSTS } from './bounds.js';
import { hostList, parseHost } from './target.js';

describe('a host spec', () => {
  it('is [user@]host with an optional path to the remote cctop', () => {
    expect(parseHost('devbox')).toEqual({ kind: 'ok', host: { name: 'devbox', cctop: null } });
    expect(parseHost('me@devbox')).toEqual({ kind: 'ok', host: { name: 'me@devbox', cctop: null } });
    expect(parseHost('me@devbox:~/bin/cctop')).toEqual({
      kind: 'ok',
      host: { name: 'me@devbox', cctop: '~/bin/cctop' },
    });
    expect(parseHost(' devbox: ')).toEqual({ kind: 'ok', host: { name: 'devbox', cctop: null } });
  });

  it('brackets an IPv6 address so its colons are not the path', () => {
    expect(parseHost('[::1]:/opt/cctop/bin/cctop')).toEqual({
      kind: 'ok',
      host: { name: '[::1]', cctop: '/opt/cctop/bin/cctop' },
    });
    expect(parseHost('[::1')).toMatchObject({ kind: 'bad' });
  });

  it('never lets a host reach ssh as an option', () => {
    expect(parseHost('-oProxyCommand=touch /tmp/x')).toMatchObject({
      kind: 'bad',
      why: expect.stringContaining('option'),
    });
    expect(parseHost('user@-oProxyCommand=x')).toMatchObject({ kind: 'bad' });
  });

  it('refuses spaces, control characters, an empty host and an overlong spec', () => {
    expect(parseHost('dev box')).toMatchObject({ kind: 'bad' });
    expect(parseHost('devbox\u001b[2J')).toMatchObject({
      kind: 'bad',
      why: expect.stringContaining('control'),
    });
    expect(parseHost('me@')).toMatchObject({ kind: 'bad' });
    expect(parseHost('me@:/x')).toMatchObject({ kind: 'bad' });
    expect(parseHost('')).toMatchObject({ kind: 'bad' });
    expect(parseHost('a'.repeat(5000))).toMatchObject({ kind: 'bad' });
  });
});

describe('the list of hosts', () => {
  it('is the --host flags when given, else CCTOP_HOSTS, else the config file', () => {
    expect(hostList(['a'], { CCTOP_HOSTS: 'b' }, ['c']).hosts.map((h) => h.name)).toEqual(['a']);
    expect(hostList([], { CCTOP_HOSTS: 'b, me@c:/x' }, ['d']).hosts).toEqual([
      { name: 'b', cctop: null },
      { name: 'me@c', cctop: '/x' },
    ]);
    expect(hostList([], {}, ['d']).hosts.map((h) => h.name)).toEqual(['d']);
  });

  it('an empty CCTOP_HOSTS turns the config file’s hosts off', () => {
    expect(hostList([], { CCTOP_HOSTS: '' }, ['d']).hosts).toEqual([]);
  });

  it('reads a host named twice once, and says which specs it refused and where they came from', () => {
    const l = hostList(['a', 'a', '-oX'], {}, []);
    expect(l.hosts.map((h) => h.name)).toEqual(['a']);
    expect(l.warnings).toEqual([expect.stringMatching(/^--host: "-oX" is not \[user@\]host/)]);
  });

  it('reads box and box:/path as one machine, and names the spec it kept', () => {
    const l = hostList([], { CCTOP_HOSTS: 'box:/opt/cctop,devbox, box' }, []);
    expect(l.hosts).toEqual([
      { name: 'box', cctop: '/opt/cctop' },
      { name: 'devbox', cctop: null },
    ]);
    expect(l.warnings).toEqual(['CCTOP_HOSTS: " box" names box again; it is read once, as "box:/opt/cctop"']);
  });

  it(`reads at most ${MAX_HOSTS} hosts and names the ones it leaves out`, () => {
    const many = Array.from({ length: MAX_HOSTS + 2 }, (_, i) => `h${i}`);
    const l = hostList([], {}, many);
    expect(l.hosts).toHaveLength(MAX_HOSTS);
    expect(l.warnings[0]).toContain(
      `config: only ${MAX_HOSTS} hosts are read; not h${MAX_HOSTS}, h${MAX_HOSTS + 1}`,
    );
  });
});
