/**
 * @module kit/deadline-sweep
 * Many deadlines under one timer: a min-heap of them, and one `setTimeout` armed for the earliest.
 * A `setTimeout` and its `clearTimeout` per call or per publish round (a `Timeout` object, its
 * async context, a timer list's insert and unlink) was a visible share of the kit's gRPC server and
 * client and of the JetStream publisher (kit README, *What a call costs*), and nearly every one of
 * those deadlines is cleared unfired: here a deadline costs a heap entry, and the timer is armed
 * again only when a deadline comes due or an earlier one arrives.
 *
 * Each deadline fires at its own time, as its own timer would. The timer keeps the process alive
 * only while a deadline is set, as the timers it replaces did. What comes due runs outside any
 * call's async context (the one this module was loaded in), not in the one its deadline was set in:
 * what fires must not depend on a call's context (nothing here does: it aborts, answers on a
 * stream, rejects a promise), and a sweep made during a call must not keep that call's context.
 *
 * Time is kept on a monotonic clock: a deadline set as "ms from now" fires that long after, however
 * the wall clock is stepped meanwhile (NTP, a VM resumed). A deadline given as an epoch time (a
 * deadline carried from the caller) is turned into the monotonic clock once, when it is set.
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** A deadline set on a sweep: pass it to {@link DeadlineSweep.clear}. */
export interface Deadline {
  /** When it comes due, in ms on the sweep's monotonic clock. */
  readonly at: number;
  /** Its place in the heap; -1 once fired or cleared. */
  index: number;
  readonly fire: () => void;
}

const MAX_TIMER_MS = 2 ** 31 - 1;
/** Runs a function in the async context this module was loaded in: no call's. */
const outsideCalls = AsyncLocalStorage.snapshot();

export class DeadlineSweep {
  readonly #heap: Deadline[] = [];
  readonly #now: () => number;
  #timer: NodeJS.Timeout | undefined;
  /** When the timer fires (the sweep's clock); Infinity when none is armed. */
  #armedAt = Number.POSITIVE_INFINITY;
  #refed = false;
  readonly #sweep = () => outsideCalls(() => this.#due());

  /** `now` is the monotonic clock in ms (tests give one that moves with mocked timers). */
  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  /** Deadlines set and not yet fired or cleared. */
  get size(): number {
    return this.#heap.length;
  }

  /** Runs `fire` `ms` from now (at least 1 ms), unless cleared first. */
  after(ms: number, fire: () => void): Deadline {
    return this.#set(this.#now() + Math.max(1, ms), fire);
  }

  /** Runs `fire` at epoch ms `epochMs` (as far from now as the wall clock says), unless cleared first. */
  at(epochMs: number, fire: () => void): Deadline {
    return this.#set(this.#now() + (epochMs - Date.now()), fire);
  }

  #set(at: number, fire: () => void): Deadline {
    const d: Deadline = { at, index: this.#heap.length, fire };
    this.#heap.push(d);
    this.#up(d.index);
    if (!this.#refed) {
      this.#refed = true;
      this.#timer?.ref();
    }
    if (at < this.#armedAt) this.#arm(at);
    return d;
  }

  /** Takes `d` off (a no-op once it fired or was cleared); the timer stays as armed. */
  clear(d: Deadline | undefined): void {
    if (!d || d.index < 0) return;
    const heap = this.#heap;
    const i = d.index;
    d.index = -1;
    const last = heap.pop() as Deadline;
    if (last !== d) {
      heap[i] = last;
      last.index = i;
      this.#down(i);
      this.#up(last.index);
    }
    if (heap.length === 0 && this.#refed) {
      // Nothing to wait for: an armed timer must not keep the process alive by itself.
      this.#refed = false;
      this.#timer?.unref();
    }
  }

  /** Clears every deadline and the timer, none of them fired. */
  stop(): void {
    for (const d of this.#heap) d.index = -1;
    this.#heap.length = 0;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#armedAt = Number.POSITIVE_INFINITY;
    this.#refed = false;
  }

  #arm(at: number): void {
    clearTimeout(this.#timer);
    this.#armedAt = at;
    // Node's longest timer (~24.8 days); a later deadline is armed again when that one fires.
    this.#timer = setTimeout(this.#sweep, Math.min(MAX_TIMER_MS, Math.max(1, at - this.#now())));
    if (!this.#refed) this.#timer.unref();
  }

  #due(): void {
    this.#timer = undefined;
    this.#armedAt = Number.POSITIVE_INFINITY;
    const now = this.#now();
    const heap = this.#heap;
    const due: Deadline[] = [];
    while (heap.length > 0 && heap[0].at <= now) {
      const d = heap[0];
      this.clear(d);
      due.push(d);
    }
    // Armed again before anything fires: a deadline set or cleared by what fires keeps the heap right.
    if (heap.length > 0) this.#arm(heap[0].at);
    for (const d of due) d.fire();
  }

  #up(i: number): void {
    const heap = this.#heap;
    const d = heap[i];
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (heap[p].at <= d.at) break;
      heap[i] = heap[p];
      heap[i].index = i;
      i = p;
    }
    heap[i] = d;
    d.index = i;
  }

  #down(i: number): void {
    const heap = this.#heap;
    const n = heap.length;
    const d = heap[i];
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const c = l + 1 < n && heap[l + 1].at < heap[l].at ? l + 1 : l;
      if (heap[c].at >= d.at) break;
      heap[i] = heap[c];
      heap[i].index = i;
      i = c;
    }
    heap[i] = d;
    d.index = i;
  }
}
