/**
 * Where a business rule reads the time (retention of read notifications, cards due for review, a job's
 * deadlines), it asks a Clock: production passes `systemClock`, tests a `fixedClock` they move by hand,
 * so no test depends on the real time.
 */
export interface Clock {
  now(): Date;
}

/** The machine's time. */
export const systemClock: Clock = { now: () => new Date() };

/** A clock that stays where it is put: `set` and `advance` move it. */
export interface FixedClock extends Clock {
  set(at: Date | string): void;
  advance(milliseconds: number): void;
}

export function fixedClock(at: Date | string = "2025-01-15T12:00:00.000Z"): FixedClock {
  let current = new Date(at).getTime();
  return {
    // a fresh Date each time: a caller mutating the result does not move the clock
    now: () => new Date(current),
    set: (next) => {
      current = new Date(next).getTime();
    },
    advance: (milliseconds) => {
      current += milliseconds;
    },
  };
}
