// The error model (contracts/errors.ts) and its one map to HTTP statuses (lib/server/web/api-errors.ts).
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppError, ERROR_CODES, faultOf } from '../../contracts/errors';
import { TimeoutError } from '../../lib/core/async/timeout';
import { ConfigError } from '../../lib/core/config/env';
import { NotFoundError } from '../../lib/server/db/errors';
import { QueueTimeoutError } from '../../lib/server/queue/producer';
import { HTTP_STATUS, HttpError, httpStatus, route } from '../../lib/server/web/api-errors';
import { JudgeError } from '../../runner/judge/errors';
import { IntakeRejectionError } from '../../lib/core/intake/reasons';
import { ApiClientError } from '../../lib/server/submit/api-client';
import { PlatformError } from '../../runner/service/judging-processor';

describe('the error model', () => {
  it('gives every error raised on purpose a code and a fault', () => {
    expect(new NotFoundError('no submission x')).toMatchObject({
      code: 'not-found',
      fault: 'user',
    });
    expect(new JudgeError('the baseline did not build').fault).toBe('platform');
    expect(new IntakeRejectionError('protected-file', 'touches main.cpp').fault).toBe('contestant');
    expect(new ConfigError('PORT: not a number').fault).toBe('platform');
    expect(faultOf(new Error('a bug'))).toBe('platform');
    expect(new TimeoutError('slow')).toBeInstanceOf(AppError);
    // The CLI's client errors and the runner's are in the same model.
    expect(new ApiClientError('rejected', 'the patch was rejected')).toMatchObject({
      code: 'rejected',
      fault: 'contestant',
      exitCode: 1,
    });
    expect(new ApiClientError('unreachable', 'cannot reach')).toMatchObject({
      fault: 'platform',
      exitCode: 2,
    });
    expect(new PlatformError('cannot load challenge x').fault).toBe('platform');
  });

  it('maps every code to a status, chosen once', () => {
    for (const code of Object.keys(ERROR_CODES) as (keyof typeof ERROR_CODES)[]) {
      const status = HTTP_STATUS[code];
      // A user's request to fix is a 4xx; the platform's own fault is a 5xx.
      if (ERROR_CODES[code] === 'platform') expect(status).toBeGreaterThanOrEqual(500);
      else expect(status).toBeLessThan(500);
    }
    expect(httpStatus('rejected', 'too-large')).toBe(413);
    expect(httpStatus('rejected', 'protected-file')).toBe(422);
  });

  it('answers each kind of failure with its status and a message for whom it is', async () => {
    const answer = async (error: unknown) => {
      const response = await route(async () => {
        throw error;
      })();
      return { status: response.status, body: (await response.json()) as { error: unknown } };
    };
    expect(await answer(new HttpError('busy', 'Too many streams'))).toEqual({
      status: 503,
      body: { error: { message: 'Too many streams', code: 'busy' } },
    });
    // A lookup's message never leaves: the caller learns only "not found".
    expect(await answer(new NotFoundError('no submission abc of user def'))).toEqual({
      status: 404,
      body: { error: { message: 'Not found', code: 'not-found' } },
    });
    const invalid = await answer(z.object({ n: z.number() }).safeParse({ n: 'x' }).error);
    expect(invalid.status).toBe(422);
    const errors: string[] = [];
    const log = console.error;
    console.error = (...args: unknown[]) => void errors.push(String(args[0]));
    try {
      // Ours: opaque to the client, logged for the operator.
      expect(await answer(new QueueTimeoutError('redis: no answer in 3 s'))).toMatchObject({
        status: 503,
      });
      const bug = await answer(new Error('secret detail'));
      expect(bug.status).toBe(500);
      expect(JSON.stringify(bug.body)).not.toContain('secret detail');
    } finally {
      console.error = log;
    }
    expect(errors).toHaveLength(2);
  });
});
