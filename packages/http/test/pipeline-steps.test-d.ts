// The pipeline's steps in another order do not compile: each takes what the one before it found
// out. A type-level test, checked by `pnpm typecheck` (this file is never run): each
// `@ts-expect-error` fails the check if the line below it compiles.
import { expectTypeOf } from 'vitest';
import {
  authorize,
  checkMediaType,
  limitRate,
  readBody,
  runUseCase,
  validate,
} from '../src/pipeline.js';
import type {
  AuthorizedRequest,
  LimitedRequest,
  RequestWithBody,
  RoutedRequest,
  ValidRequest,
} from '../src/request-stages.js';
import { StepDriver, Steps } from '../src/step-driver.js';

const routed = () => Steps.from<RoutedRequest>();

export function theOrderCompiles(): StepDriver<RoutedRequest> {
  const authorized = routed().and(authorize);
  expectTypeOf(authorized.last).toEqualTypeOf<AuthorizedRequest>();
  const limited = authorized.and(limitRate).and(checkMediaType);
  expectTypeOf(limited.last).toEqualTypeOf<LimitedRequest>();
  const read = limited.and(readBody);
  expectTypeOf(read.last).toEqualTypeOf<RequestWithBody>();
  const valid = read.and(validate);
  expectTypeOf(valid.last).toEqualTypeOf<ValidRequest>();
  // The use case answers every request that reaches it: the list is complete.
  const complete = valid.and(runUseCase);
  expectTypeOf(complete.last).toEqualTypeOf<never>();
  return new StepDriver(complete, 1_000);
}

export function anotherOrderDoesNot(): void {
  // @ts-expect-error the rate limits count a request its token may make: not before authorize
  routed().and(limitRate);
  // @ts-expect-error the media type is checked once the rate limits let the request through
  routed().and(authorize).and(checkMediaType);
  // @ts-expect-error no body is read before the rate limits let the request through
  routed().and(authorize).and(readBody);
  // @ts-expect-error the inputs are validated once the body is read
  routed().and(authorize).and(limitRate).and(validate);
  // @ts-expect-error the use case is given valid inputs
  routed().and(authorize).and(limitRate).and(readBody).and(runUseCase);
  // @ts-expect-error authorize takes a routed request, not a read one
  routed().and(authorize).and(limitRate).and(readBody).and(authorize);
  // @ts-expect-error the body is read once
  routed().and(authorize).and(limitRate).and(readBody).and(readBody);
  // @ts-expect-error validation and the use case swapped
  routed().and(authorize).and(limitRate).and(readBody).and(runUseCase).and(validate);
}

export function anUnfinishedListMakesNoDriver(): void {
  const unfinished = routed().and(authorize).and(limitRate).and(readBody).and(validate);
  // @ts-expect-error a driver takes a list whose last step answers every request
  new StepDriver(unfinished, 1_000);
}
