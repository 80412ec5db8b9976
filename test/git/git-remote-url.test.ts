import { describe, expect, it } from 'vitest';
import { checkRemoteUrl } from '../../src/git/git-remote-url.js';

describe('checkRemoteUrl (SEC-2)', () => {
  it.each([
    ['https://github.com/acme/repo.git', 'https', 'https://github.com/acme/repo.git'],
    ['http://127.0.0.1:3000/acme/repo.git', 'http', 'http://127.0.0.1:3000/acme/repo.git'],
    ['https://user%40corp:token@git.example.com/repo.git', 'https', 'https://user%40corp:token@git.example.com/repo.git'],
    ['ssh://git@github.com/acme/repo.git', 'ssh', 'ssh://git@github.com/acme/repo.git'],
    ['ssh://git@[::1]:2222/repo.git', 'ssh', 'ssh://git@[::1]:2222/repo.git'],
    ['git+ssh://host/repo', 'ssh', 'git+ssh://host/repo'],
    ['git@github.com:acme/repo.git', 'ssh', 'git@github.com:acme/repo.git'],
    ['[::1]:repo.git', 'ssh', '[::1]:repo.git'],
    ['git://example.com/repo.git', 'git', 'git://example.com/repo.git'],
    ['file:///srv/git/repo.git', 'file', 'file:///srv/git/repo.git'],
    ['/srv/git/repo.git', 'file', '/srv/git/repo.git'],
    ['/srv/git/My Repos/x.git', 'file', '/srv/git/My Repos/x.git'],
    ['../remote.git', 'file', '/work/remote.git'],
    ['./-dash.git', 'file', '/work/repo/-dash.git'],
  ])('accepts %s', (url, transport, forwardUrl) => {
    expect(checkRemoteUrl(url, '/work/repo')).toEqual({ ok: true, transport, forwardUrl });
  });

  it.each([
    ['', /empty/],
    ['--upload-pack=touch x', /starts with "-"/],
    ['-oProxyCommand=x:repo', /starts with "-"/],
    ['ext::sh -c touch% /tmp/x', /remote-helper syntax "ext::"/],
    ['fd::3', /remote-helper syntax "fd::"/],
    ['foo::https://example.com/x', /remote-helper syntax "foo::"/],
    ['evil://example.com/x', /transport "evil"/],
    ['ssh://-oProxyCommand=x/repo', /host starting with "-"/],
    ['ssh://%2doProxyCommand=x/repo', /host starting with "-"/],
    ['ssh://-l@host/repo', /user name starting with "-"/],
    ['-host:repo', /starts with "-"/],
    ['user@-host:repo', /host starting with "-"/],
    ['ssh://%zz/repo', /percent-encoding/],
    ['/srv/repo\n[core]', /control character/],
    ['/srv/repo\u0000x', /control character/],
    [`/${'a'.repeat(5000)}`, /longer than/],
  ])('refuses %j', (url, reason) => {
    const check = checkRemoteUrl(url, '/work/repo');
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.reason).toMatch(reason);
  });
});
