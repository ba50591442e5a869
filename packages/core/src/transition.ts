import type { DomainEvent } from './events.js';

/**
 * The outcome of a state machine step: the next record and the events the step caused. A no-op
 * step returns the record it was given, unchanged, and no event.
 */
export interface Transition<T> {
  readonly record: T;
  readonly events: readonly DomainEvent[];
}

/** Whether a transition changed anything (a no-op has no event). */
export function isNoOp<T>(transition: Transition<T>): boolean {
  return transition.events.length === 0;
}
