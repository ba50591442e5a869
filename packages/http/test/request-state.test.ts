import { afterEach, describe, expect, it, vi } from 'vitest';
import { AnswerHeaders } from '../src/answer-headers.js';
import type { Logger } from '../src/logger.js';
import type { ApiRequest, PipelineParts } from '../src/pipeline.js';
import { RequestState } from '../src/request-state.js';
import type { RequestTelemetry, Telemetry } from '../src/telemetry.js';

const incoming: ApiRequest = {
  method: 'GET',
  url: '/restaurants/v1/restaurants/x',
  headers: { 'x-request-id': 'request-1' },
  address: '127.0.0.1',
  body: { parsed: undefined },
};

/** A request's state over a pipeline with none of its parts but a logger and a telemetry. */
function requestWith(
  logRequests: boolean,
  telemetry: Telemetry | undefined,
): { readonly request: RequestState; readonly lines: object[] } {
  const lines: object[] = [];
  const logger: Logger = {
    info: (details) => lines.push(details),
    warn: (details) => lines.push(details),
    error: (details) => lines.push(details),
    child: () => logger,
  };
  const parts = {
    logger,
    logRequests,
    telemetry,
    responseValidator: undefined,
  } as Partial<PipelineParts> as PipelineParts;
  const request = new RequestState({ parts, headers: new AnswerHeaders({}) }, incoming, undefined);
  return { request, lines };
}

/** A telemetry whose requests keep the durations they are ended with. */
function keptTelemetry(): Telemetry & { readonly ended: number[] } {
  const ended: number[] = [];
  const observed: RequestTelemetry = {
    logBindings: undefined,
    within: (work) => work(),
    end: (_response, elapsedMs) => {
      ended.push(elapsedMs);
    },
  };
  return { ended, start: () => observed };
}

let now = 0;
afterEach(() => {
  vi.restoreAllMocks();
});

describe('RequestState.end', () => {
  it('ends the telemetry and writes the log line once, with one duration for both', () => {
    now = 1_000;
    vi.spyOn(performance, 'now').mockImplementation(() => now);
    const telemetry = keptTelemetry();
    const { request, lines } = requestWith(true, telemetry);
    const answer = request.ok({ text: '{}', length: '2', events: [] }, undefined);
    now = 1_012.5;
    answer.closed?.({ statusCode: 200, writableFinished: true });
    // An adapter that sees both a finish and a close: the second call counts for nothing.
    now = 1_050;
    answer.closed?.({ statusCode: 200, writableFinished: false });
    expect(telemetry.ended).toEqual([12.5]);
    expect(lines).toEqual([
      {
        requestId: 'request-1',
        method: 'GET',
        path: '/restaurants/v1/restaurants/x',
        status: 200,
        ms: 13,
      },
    ]);
  });

  it('ends the telemetry of a request whose line is not written', () => {
    now = 0;
    vi.spyOn(performance, 'now').mockImplementation(() => now);
    const telemetry = keptTelemetry();
    const { request, lines } = requestWith(false, telemetry);
    const answer = request.problem({ code: 'NOT_FOUND', detail: '' });
    now = 4;
    answer.closed?.({ statusCode: 404, writableFinished: true });
    expect(telemetry.ended).toEqual([4]);
    expect(lines).toEqual([]);
  });

  it('answers with nothing to call at the close when nothing observes the request', () => {
    const { request } = requestWith(false, undefined);
    expect(request.started).toBeUndefined();
    expect(request.ok({ text: '{}', length: '2', events: [] }, undefined).closed).toBeUndefined();
  });
});
