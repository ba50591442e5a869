/**
 * The deadlines of the requests that wait on a step, without a timer per request: they are kept in
 * the order they started waiting (so the oldest is first), and one timer, the step driver's (one
 * per API), answers those past their deadline. A request leaves the set when it is answered.
 */
export class RequestDeadlines<T> {
  readonly #inFlight = new Map<T, number>();
  #timer: NodeJS.Timeout | undefined;

  /**
   * @param timeoutMs - how long a request may take
   * @param onTimeout - called once for each request not answered in time
   */
  constructor(
    private readonly timeoutMs: number,
    private readonly onTimeout: (request: T) => void,
  ) {}

  /** Starts the clock of a request. */
  start(request: T): void {
    this.#inFlight.set(request, Date.now() + this.timeoutMs);
    this.#timer ??= setTimeout(() => this.#sweep(), this.timeoutMs).unref();
  }

  /** The request was answered. */
  finish(request: T): void {
    this.#inFlight.delete(request);
  }

  #sweep(): void {
    this.#timer = undefined;
    const now = Date.now();
    for (const [request, deadline] of this.#inFlight) {
      if (deadline > now) {
        // Later arrivals have later deadlines: wait for this one.
        this.#timer = setTimeout(() => this.#sweep(), deadline - now).unref();
        return;
      }
      this.#inFlight.delete(request);
      this.onTimeout(request);
    }
  }
}
