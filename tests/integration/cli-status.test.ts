// `perfjudge status` and `--wait` against a real HTTP server speaking the platform's contract
// (GET /api/submissions/<id> and its Server-Sent Events): the live lines per target, the verdict
// with each target's speedup, the exit codes, the polling fallback when the server cannot stream,
// and the refusals (a bad token, someone else's submission).
import { execFile } from 'node:child_process';
import { writeFile, mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../lib/core/config/env';
import { freePort } from '../../lib/core/net/free-port';
import { followSubmission, type SubmissionState } from '../../lib/server/submit/status-client';

const execFileAsync = promisify(execFile);
const TOKEN = 'pj_test_token_0123456789';

function target(name: string, over: Partial<SubmissionState['targets'][number]> = {}) {
  return {
    target: name,
    status: 'QUEUED',
    verdict: null,
    attempts: 0,
    stage: 'queued',
    stageFraction: null,
    overall: 0,
    message: null,
    speedup: null,
    ciLow: null,
    ciHigh: null,
    ...over,
  };
}

function state(
  id: string,
  targets: ReturnType<typeof target>[],
  done = false,
  verdict: string | null = null,
) {
  return {
    submissionId: id,
    status: done ? 'DONE' : 'JUDGING',
    verdict,
    score: done && verdict === 'ACCEPTED' ? 3.5 : null,
    disqualified: false,
    done,
    live: true,
    targets,
    links: { page: `/submissions/${id}` },
  };
}

const ACCEPTED = [
  state('sse1', [target('linux-intel'), target('windows-amd')]),
  state('sse1', [
    target('linux-intel', {
      status: 'JUDGING',
      stage: 'measure',
      stageFraction: 0.5,
      overall: 0.58,
      message: 'pair 3 of 5',
    }),
    target('windows-amd', {
      status: 'WAITING',
      stage: 'waiting',
      overall: 0.02,
      message: 'waiting for the host',
    }),
  ]),
  state(
    'sse1',
    [
      target('linux-intel', {
        status: 'DONE',
        verdict: 'ACCEPTED',
        stage: 'done',
        overall: 1,
        speedup: 2.1,
        ciLow: 2.0,
        ciHigh: 2.25,
      }),
      target('windows-amd', {
        status: 'DONE',
        verdict: 'ACCEPTED',
        stage: 'done',
        overall: 1,
        speedup: 1.4,
        ciLow: 1.3,
        ciHigh: 1.5,
      }),
    ],
    true,
    'ACCEPTED',
  ),
];
const WRONG = state(
  'wrong1',
  [
    target('linux-intel', { status: 'DONE', verdict: 'WRONG_ANSWER', stage: 'done', overall: 1 }),
    target('windows-amd', { status: 'DONE', verdict: 'WRONG_ANSWER', stage: 'done', overall: 1 }),
  ],
  true,
  'WRONG_ANSWER',
);

let server: http.Server;
let base: string;
let dir: string;
let tokenFile: string;
let polls = 0;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'perfjudge-status-'));
  tokenFile = path.join(dir, 'token');
  await writeFile(tokenFile, `${TOKEN}\n`);
  server = http.createServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${TOKEN}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"message":"no"}}');
      return;
    }
    const match = /^\/api\/submissions\/([^/]+)(\/events)?$/.exec(req.url ?? '');
    const id = match?.[1];
    const json = (body: unknown) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (id === 'sse1' && match?.[2]) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('retry: 1000\n\n');
      ACCEPTED.forEach((s, i) =>
        setTimeout(
          () => {
            res.write(`event: progress\ndata: ${JSON.stringify(s)}\n\n`);
            if (i === ACCEPTED.length - 1) res.end('event: done\ndata: {}\n\n');
          },
          50 * (i + 1),
        ),
      );
    } else if (id === 'sse1') json(ACCEPTED[ACCEPTED.length - 1]);
    else if (id === 'poll1' && match?.[2]) res.writeHead(503).end('busy');
    else if (id === 'poll1') json(ACCEPTED[Math.min(polls++, ACCEPTED.length - 1)]);
    else if (id === 'wrong1' && !match?.[2]) json(WRONG);
    else if (id === 'wrong1') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`event: progress\ndata: ${JSON.stringify(WRONG)}\n\nevent: done\ndata: {}\n\n`);
    } else
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"No"}}');
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(
      process.execPath,
      [path.join(REPO_ROOT, 'bin/perfjudge.mjs'), ...args],
      { cwd: dir },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('following a submission', () => {
  it('yields every state of the event stream until the done one', async () => {
    const seen: SubmissionState[] = [];
    for await (const s of followSubmission({ server: base, token: TOKEN, submissionId: 'sse1' }))
      seen.push(s);
    expect(seen.map((s) => s.targets[0]!.stage)).toEqual(['queued', 'measure', 'done']);
    expect(seen.at(-1)!.done).toBe(true);
  });

  it('polls the JSON state when the server cannot stream', async () => {
    polls = 0;
    const seen: SubmissionState[] = [];
    for await (const s of followSubmission({
      server: base,
      token: TOKEN,
      submissionId: 'poll1',
      pollMs: 20,
    }))
      seen.push(s);
    expect(seen.map((s) => s.targets[0]!.stage)).toEqual(['queued', 'measure', 'done']);
  });
});

describe('perfjudge status', () => {
  it('--wait prints a line per target as it changes, then the verdict and speedups; exit 0', async () => {
    const r = await cli('status', '--server', base, '--token-file', tokenFile, '--wait', 'sse1');
    expect(r.code, r.stderr).toBe(0);
    // A log (not a terminal): a line per change of stage.
    expect(r.stderr).toMatch(/linux-intel\s+\[-+\]\s+0%\s+queued/);
    expect(r.stderr).toMatch(/linux-intel\s+\[#+-+\]\s+58%\s+measure: pair 3 of 5/);
    expect(r.stderr).toMatch(/windows-amd\s+\[-+\]\s+2%\s+waiting: waiting for the host/);
    expect(r.stdout).toContain('Submission sse1: ACCEPTED, score 3.500');
    expect(r.stdout).toMatch(
      /linux-intel\s+ACCEPTED\s+speedup 2\.100× \(95% interval 2\.000–2\.250\)/,
    );
    expect(r.stdout).toContain(`${base}/submissions/sse1`);
  });

  it("a verdict that is the patch's fault exits 1 with --wait; without --wait it only prints", async () => {
    const waited = await cli(
      'status',
      '--server',
      base,
      '--token-file',
      tokenFile,
      '--wait',
      'wrong1',
    );
    expect(waited.code).toBe(1);
    expect(waited.stdout).toContain('Submission wrong1: WRONG_ANSWER');
    const printed = await cli('status', '--server', base, '--token-file', tokenFile, 'wrong1');
    expect(printed.code).toBe(0);
    expect(printed.stdout).toMatch(/windows-amd\s+WRONG_ANSWER/);
  });

  it('says why when the token is refused or the submission is not visible', async () => {
    await writeFile(path.join(dir, 'bad'), 'pj_wrong\n');
    const refused = await cli(
      'status',
      '--server',
      base,
      '--token-file',
      path.join(dir, 'bad'),
      'sse1',
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('the server refused the token (401)');
    const missing = await cli(
      'status',
      '--server',
      base,
      '--token-file',
      tokenFile,
      '--wait',
      'nope',
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no submission nope that this token may see (404)');
  });
});
