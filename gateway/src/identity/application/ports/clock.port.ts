/** Where a rule reads the time (lockout, session standing, token expiry): tests pass a clock they set by hand. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
