import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import { dirname, join, normalize } from 'node:path';
import type { AddressInfo } from 'node:net';
import { git } from './review-repo.js';
import { streamBody } from './stream-body.js';

/** A review as the fake stores what was posted to `POST /repos/:o/:r/pulls/:n/reviews`. */
export interface PostedReview {
  id: number;
  commit_id: string;
  event: string;
  body: string;
  comments: Array<{ path: string; line: number; side: string; start_line?: number; start_side?: string; body: string }>;
}

export interface FakeGitHub {
  url: string;
  /** What the workspace's `githubApiBaseUrl` is set to. */
  apiBaseUrl: string;
  /** What the workspace's `githubWebBaseUrl` is set to: PR pages and clone URLs live here. */
  webBaseUrl: string;
  token: string;
  /** Pull requests by `owner/repo#number`: the JSON the API answers (tests may make it hostile). */
  pulls: Map<string, Record<string, any>>;
  /** Bare repositories served over git's dumb HTTP protocol, by `owner/repo`. */
  repos: Map<string, string>;
  reviews: Map<string, PostedReview[]>;
  /** Every request: method, path and whether it carried the right credential. */
  requests: Array<{ method: string; path: string; authorized: boolean }>;
  /**
   * Serves `source`'s branches as the bare repository `owner/repo` with `refs/pull/<n>/head` at
   * `headSha`, and answers the PR `owner/repo#number`.
   */
  addPullRequest(input: { owner: string; repo: string; number: number; title: string; source: string; bare: string; baseBranch: string; headSha: string; baseSha: string }): void;
  /**
   * Serves the bare repository `bare` as `owner/repo`: readable over the dumb protocol, writable over
   * git's smart HTTP (`git http-backend`), and pull requests may be opened on it through the API.
   */
  addRepository(input: { owner: string; repo: string; bare: string }): void;
  /** When set, answers the API call (method and path) with this instead: a hostile or broken forge. */
  overrideApiAnswer: ((method: string, path: string) => { status: number; body: unknown } | undefined) | undefined;
  /**
   * A hostile or broken API: when set and it returns a body for an API path (`/api/…`), that request
   * is answered 200 `application/json` with the body streamed from the generator as it yields (no
   * Content-Length, with backpressure), until it ends or the client hangs up.
   */
  streamApiAnswer: ((path: string) => AsyncIterable<Buffer> | undefined) | undefined;
  /** Each streamed answer once it is over: the bytes written and whether the client hung up before its end. */
  streamedAnswers: Array<{ path: string; written: number; hungUp: boolean }>;
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

/**
 * A local fake of the GitHub REST API (pulls, reviews) and of git over HTTP (the dumb protocol, read
 * straight from bare repositories), on 127.0.0.1 port 0 — the forge adapter's tests never touch the
 * internet. API calls need `Authorization: Bearer <token>`; git requests need the Basic header the
 * adapter derives from the same token.
 */
export async function startFakeGitHub(token = 'ghp_fake_test_token_0123456789'): Promise<FakeGitHub> {
  const pulls = new Map<string, Record<string, any>>();
  const repos = new Map<string, string>();
  const reviews = new Map<string, PostedReview[]>();
  const requests: FakeGitHub['requests'] = [];
  const streamedAnswers: FakeGitHub['streamedAnswers'] = [];
  /** The fake itself, for the request handler to read `streamApiAnswer` as a test sets it. */
  const self: { fake?: FakeGitHub } = {};
  let nextReviewId = 9000;
  const basic = `Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`;
  const server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://fake');
      const path = url.pathname;
      if (path.startsWith('/web/')) {
        const authorized = request.headers.authorization === basic;
        requests.push({ method: request.method ?? 'GET', path, authorized });
        if (!authorized) return json(response, 401, { message: 'Bad credentials' });
        const match = /^\/web\/([^/]+)\/([^/]+?)\.git\/(.+)$/.exec(path);
        const bare = match ? repos.get(`${match[1]}/${match[2]}`) : undefined;
        if (bare && (match![3] === 'git-receive-pack' || url.searchParams.get('service') === 'git-receive-pack')) return receivePack(request, response, bare, match![3]!, url.search.slice(1));
        const file = match ? normalize(match[3]!) : '';
        if (!bare || file.startsWith('..')) return json(response, 404, { message: 'Not Found' });
        try {
          const data = await readFile(join(bare, file));
          response.writeHead(200, { 'content-type': 'application/octet-stream' });
          response.end(data);
        } catch {
          json(response, 404, { message: 'Not Found' });
        }
        return;
      }
      const authorized = request.headers.authorization === `Bearer ${token}`;
      requests.push({ method: request.method ?? 'GET', path: `${path}${url.search}`, authorized });
      if (!authorized) return json(response, 401, { message: 'Bad credentials' });
      const streamed = path.startsWith('/api/') ? self.fake?.streamApiAnswer?.(path) : undefined;
      if (streamed) {
        response.writeHead(200, { 'content-type': 'application/json' });
        streamedAnswers.push({ path, ...(await streamBody(response, streamed)) });
        return;
      }
      const overridden = self.fake?.overrideApiAnswer?.(request.method ?? 'GET', `${path}${url.search}`);
      if (overridden) return json(response, overridden.status, overridden.body);
      const pullList = /^\/api\/repos\/([^/]+)\/([^/]+)\/pulls$/.exec(path);
      if (pullList) return pullRequestList(request, response, pullList[1]!, pullList[2]!, url);
      const pull = /^\/api\/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)(\/reviews)?$/.exec(path);
      if (!pull) return json(response, 404, { message: 'Not Found' });
      const key = `${pull[1]}/${pull[2]}#${pull[3]}`;
      const pr = pulls.get(key);
      if (!pr) return json(response, 404, { message: 'Not Found' });
      if (!pull[4] && request.method === 'PATCH') {
        const edit = JSON.parse(await readBody(request)) as Record<string, unknown>;
        for (const field of ['title', 'body', 'state'] as const) if (typeof edit[field] === 'string') pr[field] = edit[field];
        return json(response, 200, withCurrentHead(pr));
      }
      if (!pull[4]) return json(response, 200, withCurrentHead(pr));
      const list = reviews.get(key) ?? [];
      reviews.set(key, list);
      if (request.method === 'GET') {
        const page = Number(url.searchParams.get('page') ?? '1');
        const perPage = Number(url.searchParams.get('per_page') ?? '30');
        return json(response, 200, list.slice((page - 1) * perPage, page * perPage).map((review) => ({ id: review.id, body: review.body, state: review.event, commit_id: review.commit_id })));
      }
      const body = JSON.parse(await readBody(request)) as Omit<PostedReview, 'id'>;
      if (!['APPROVE', 'REQUEST_CHANGES', 'COMMENT'].includes(body.event)) return json(response, 422, { message: 'Unprocessable Entity' });
      const posted = { ...body, id: nextReviewId++ };
      list.push(posted);
      return json(response, 200, { id: posted.id, state: body.event, body: body.body });
    })().catch((error: unknown) => json(response, 500, { message: String(error) }));
  });
  let nextPullNumber = 100;
  /** A pull request's head as its branch now is in the served repository (a push moves it). */
  const withCurrentHead = (pr: Record<string, any>): Record<string, any> => {
    const bare = repos.get(`${pr._owner}/${pr._repo}`);
    if (bare && pr._opened) {
      try {
        pr.head.sha = git(bare, 'rev-parse', `refs/heads/${pr.head.ref}`);
      } catch {
        // The branch is gone: the head stays what it was.
      }
    }
    const { _owner, _repo, _opened, ...visible } = pr;
    return visible;
  };
  /** `GET …/pulls?head=owner:branch&state=…` lists; `POST …/pulls` opens one (422 when the branch is missing or already has one). */
  const pullRequestList = async (request: IncomingMessage, response: ServerResponse, owner: string, repo: string, url: URL): Promise<void> => {
    const bare = repos.get(`${owner}/${repo}`);
    if (!bare) return json(response, 404, { message: 'Not Found' });
    const mine = [...pulls.entries()].filter(([key]) => key.startsWith(`${owner}/${repo}#`)).map(([, pr]) => pr);
    if (request.method === 'GET') {
      const head = url.searchParams.get('head');
      const state = url.searchParams.get('state') ?? 'open';
      const listed = mine.filter((pr) => (head === null || `${owner}:${pr.head.ref}` === head) && (state === 'all' || pr.state === state));
      return json(response, 200, listed.map(withCurrentHead));
    }
    const body = JSON.parse(await readBody(request)) as { title?: string; body?: string; head?: string; base?: string };
    let headSha: string;
    let baseSha: string;
    try {
      headSha = git(bare, 'rev-parse', `refs/heads/${body.head}`);
      baseSha = git(bare, 'rev-parse', `refs/heads/${body.base}`);
    } catch {
      return json(response, 422, { message: 'Validation Failed', errors: [{ field: 'head' }] });
    }
    if (mine.some((pr) => pr.head.ref === body.head && pr.state === 'open')) return json(response, 422, { message: 'A pull request already exists' });
    const number = nextPullNumber++;
    const cloneUrl = `${webBaseUrl}/${owner}/${repo}.git`;
    const pr: Record<string, any> = {
      _owner: owner,
      _repo: repo,
      _opened: true,
      number,
      title: body.title,
      body: body.body,
      state: 'open',
      html_url: `${webBaseUrl}/${owner}/${repo}/pull/${number}`,
      head: { ref: body.head, sha: headSha, repo: { clone_url: cloneUrl } },
      base: { ref: body.base, sha: baseSha, repo: { clone_url: cloneUrl } },
    };
    pulls.set(`${owner}/${repo}#${number}`, pr);
    return json(response, 201, withCurrentHead(pr));
  };
  /** git's smart HTTP for a push, answered by `git http-backend` (a CGI) over the served bare repository. */
  const receivePack = (request: IncomingMessage, response: ServerResponse, bare: string, pathInfo: string, query: string): void => {
    const child = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        GIT_PROJECT_ROOT: dirname(bare),
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: `/${bare.split('/').at(-1)}/${pathInfo}`,
        QUERY_STRING: query,
        REQUEST_METHOD: request.method ?? 'GET',
        CONTENT_TYPE: request.headers['content-type'] ?? '',
        REMOTE_USER: 'fake',
        REMOTE_ADDR: '127.0.0.1',
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_COUNT: '1',
        GIT_CONFIG_KEY_0: 'http.receivepack',
        GIT_CONFIG_VALUE_0: 'true',
        ...(request.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: String(request.headers['content-encoding']) } : {}),
      },
    });
    request.pipe(child.stdin);
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('close', () => {
      const output = Buffer.concat(chunks);
      const split = output.indexOf('\r\n\r\n');
      const headers: Record<string, string> = {};
      let status = 200;
      for (const line of output.subarray(0, split).toString('latin1').split('\r\n')) {
        const colon = line.indexOf(':');
        if (colon === -1) continue;
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
        else headers[name] = value;
      }
      // The dumb protocol the server's fetches use reads info/refs: keep it current after a push.
      if (request.method === 'POST') git(bare, 'update-server-info');
      response.writeHead(status, headers);
      response.end(output.subarray(split + 4));
    });
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const webBaseUrl = `${url}/web`;
  const fake: FakeGitHub = {
    url,
    apiBaseUrl: `${url}/api`,
    webBaseUrl,
    token,
    pulls,
    repos,
    reviews,
    requests,
    addPullRequest(input) {
      git(input.source, 'clone', '-q', '--bare', input.source, input.bare);
      git(input.bare, 'update-ref', `refs/pull/${input.number}/head`, input.headSha);
      git(input.bare, 'update-server-info');
      repos.set(`${input.owner}/${input.repo}`, input.bare);
      pulls.set(`${input.owner}/${input.repo}#${input.number}`, {
        number: input.number,
        title: input.title,
        state: 'open',
        html_url: `${webBaseUrl}/${input.owner}/${input.repo}/pull/${input.number}`,
        head: { ref: 'feature', sha: input.headSha, repo: { clone_url: `${webBaseUrl}/${input.owner}/${input.repo}.git` } },
        base: { ref: input.baseBranch, sha: input.baseSha, repo: { clone_url: `${webBaseUrl}/${input.owner}/${input.repo}.git` } },
      });
    },
    addRepository(input) {
      git(input.bare, 'update-server-info');
      repos.set(`${input.owner}/${input.repo}`, input.bare);
    },
    overrideApiAnswer: undefined,
    streamApiAnswer: undefined,
    streamedAnswers,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  self.fake = fake;
  return fake;
}
