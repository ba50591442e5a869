import { isThenable } from '@workforce-kit/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AnswerHeaders } from '../src/answer-headers.js';
import type { Logger } from '../src/logger.js';
import type { ApiRequest, PipelineParts } from '../src/pipeline.js';
import { type Answer, RequestState } from '../src/request-state.js';
import { StepDriver, Steps } from '../src/step-driver.js';

/** A logger that keeps its lines' messages. */
function keptLogger(): Logger & { readonly lines: string[] } {
  const lines: string[] = [];
  const logger: Logger & { readonly lines: string[] } = {
    lines,
    info: (_details, message) => lines.push(`info ${message}`),
    warn: (_details, message) => lines.push(`warn ${message}`),
    error: (_details, message) => lines.push(`error ${message}`),
    child: () => logger,
  };
  return logger;
}

const incoming: ApiRequest = {
  method: 'GET',
  url: '/restaurants/v1/restaurants/x',
  headers: { 'x-request-id': 'request-1' },
  address: '127.0.0.1',
  body: { parsed: undefined },
};

/** A request's state over a pipeline with none of its parts but a logger. */
function requestWith(logger: Logger): RequestState {
  const parts = {
    logger,
    logRequests: false,
    telemetry: undefined,
    responseValidator: undefined,
  } as Partial<PipelineParts> as PipelineParts;
  return new RequestState({ parts, headers: new AnswerHeaders({}) }, incoming, undefined);
}

/** An answer of the status, made as the steps make theirs (200, or a problem's). */
function answer(request: RequestState, status: 200 | 429 | 503): Answer {
  if (status === 200) return request.ok({ text: '{}', length: '2', events: [] }, undefined);
  return request.problem({
    code: status === 429 ? 'RATE_LIMITED' : 'STORAGE_UNAVAILABLE',
    detail: '',
  });
}

/** A step that records that it ran, then answers (or goes on with) `outcome`. */
function step<Out>(ran: string[], name: string, outcome: (request: RequestState) => Out) {
  return (request: RequestState) => {
    ran.push(name);
    return outcome(request);
  };
}

/** What a step that may answer or go on gives. */
type GoesOn = RequestState | Answer;

afterEach(() => {
  vi.useRealTimers();
});

describe('StepDriver', () => {
  it('runs the steps in order, at once, while each answers at once: no promise', () => {
    const ran: string[] = [];
    const driver = new StepDriver(
      Steps.from<RequestState>()
        .and(step(ran, 'first', (request): GoesOn => request))
        .and(step(ran, 'second', (request): GoesOn => answer(request, 429)))
        .and(step(ran, 'third', (request) => answer(request, 200))),
      1_000,
    );
    const answering = driver.run(requestWith(keptLogger()));
    expect(isThenable(answering)).toBe(false);
    expect(answering).toMatchObject({ status: 429 });
    expect(ran).toEqual(['first', 'second']);
  });

  it('waits only at a step that returns a promise, then goes on with the rest', async () => {
    const ran: string[] = [];
    let release: () => void = () => undefined;
    const driver = new StepDriver(
      Steps.from<RequestState>()
        .and(step(ran, 'first', (request): GoesOn => request))
        .and(
          step(
            ran,
            'waits',
            (request) => new Promise<GoesOn>((resolve) => (release = () => resolve(request))),
          ),
        )
        .and(step(ran, 'last', (request) => answer(request, 200))),
      1_000,
    );
    const answering = driver.run(requestWith(keptLogger()));
    expect(isThenable(answering)).toBe(true);
    expect(ran).toEqual(['first', 'waits']);
    release();
    expect(await answering).toMatchObject({ status: 200 });
    expect(ran).toEqual(['first', 'waits', 'last']);
  });

  it('answers a step that throws, at once or later, with a logged 500', async () => {
    const logger = keptLogger();
    const now = new StepDriver(
      Steps.from<RequestState>().and((): Answer => {
        throw new Error('a store that throws');
      }),
      1_000,
    );
    expect(now.run(requestWith(logger))).toMatchObject({ status: 500 });
    const later = new StepDriver(
      Steps.from<RequestState>().and(
        (): Promise<Answer> => Promise.reject(new Error('a store that rejects')),
      ),
      1_000,
    );
    expect(await later.run(requestWith(logger))).toMatchObject({ status: 500 });
    expect(logger.lines).toEqual(['error unexpected error', 'error unexpected error']);
  });

  it('answers a request that waits past its deadline 503, once, and runs no step after', async () => {
    vi.useFakeTimers();
    const ran: string[] = [];
    let release: () => void = () => undefined;
    const logger = keptLogger();
    const driver = new StepDriver(
      Steps.from<RequestState>()
        .and(
          step(
            ran,
            'waits',
            (request) => new Promise<GoesOn>((resolve) => (release = () => resolve(request))),
          ),
        )
        .and(step(ran, 'change', (request) => answer(request, 200))),
      50,
    );
    const answering = driver.run(requestWith(logger));
    await vi.advanceTimersByTimeAsync(50);
    const answered = await answering;
    expect(answered.status).toBe(503);
    expect(JSON.parse(answered.body)).toMatchObject({ code: 'REQUEST_TIMEOUT' });
    expect(answered.headers).toEqual(expect.arrayContaining(['Retry-After', 'Connection']));
    // The step it waited on settles after the deadline: the change after it never starts.
    release();
    await vi.advanceTimersByTimeAsync(0);
    expect(ran).toEqual(['waits']);
    expect(logger.lines).toEqual(['warn request timed out']);
  });

  it('keeps the first answer of a request that waited: a step answering after it is dropped', async () => {
    vi.useFakeTimers();
    let release: () => void = () => undefined;
    const driver = new StepDriver(
      Steps.from<RequestState>().and(
        (request) =>
          new Promise<Answer>((resolve) => (release = () => resolve(answer(request, 200)))),
      ),
      50,
    );
    const answering = driver.run(requestWith(keptLogger()));
    await vi.advanceTimersByTimeAsync(60);
    release();
    await vi.advanceTimersByTimeAsync(0);
    expect((await answering).status).toBe(503);
  });

  it('answers 500 when no step answers (a list that does not end with an answer)', () => {
    const goesOn = Steps.from<RequestState>().and((request) => request);
    // @ts-expect-error a driver takes only a list whose last step answers
    const driver = new StepDriver(goesOn, 1_000);
    expect(driver.run(requestWith(keptLogger()))).toMatchObject({ status: 500 });
  });
});

describe('AnswerHeaders', () => {
  it("puts each value in its named slot, the host's headers first, a problem's own last", () => {
    const headers = new AnswerHeaders({
      'Strict-Transport-Security': 'max-age=1',
      // The API's own header, in any letter case, is not the host's to set.
      'content-type': 'text/plain',
    });
    // What every answer starts with: the host's headers, then the API's own.
    const everyAnswer = [
      'Strict-Transport-Security',
      'max-age=1',
      'Cache-Control',
      'no-store',
      'X-Content-Type-Options',
      'nosniff',
    ];
    const limits = { limit: '20', remaining: '19', reset: '1', refused: undefined };
    expect(headers.of('id-1', limits, 'application/json', '12', undefined)).toEqual([
      ...everyAnswer,
      ...['X-Request-Id', 'id-1', 'RateLimit-Limit', '20', 'RateLimit-Remaining', '19'],
      ...['RateLimit-Reset', '1', 'Content-Type', 'application/json', 'Content-Length', '12'],
    ]);
    const own = { 'Retry-After': '1' };
    expect(headers.of('id-2', undefined, 'application/problem+json', '3', own)).toEqual([
      ...everyAnswer,
      ...['X-Request-Id', 'id-2', 'Content-Type', 'application/problem+json'],
      ...['Content-Length', '3', 'Retry-After', '1'],
    ]);
  });
});
