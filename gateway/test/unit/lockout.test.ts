import { accountLocked, afterFailure } from "../../src/auth/lockout";

const policy = { maxFailures: 3, lockMinutes: 15 };
const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 12, minute));

describe("sign-in lockout rule", () => {
  it("locks after the configured number of failures in a row, for the configured time", () => {
    let state = { failures: 0, lockedUntil: null as Date | null };
    state = afterFailure(state, policy, at(0));
    state = afterFailure(state, policy, at(1));
    expect(state).toEqual({ failures: 2, lockedUntil: null });
    state = afterFailure(state, policy, at(2));
    expect(state).toEqual({ failures: 3, lockedUntil: at(17) });
  });

  it("starts counting afresh once a lock has run out", () => {
    const expired = { failures: 3, lockedUntil: at(17) };
    expect(afterFailure(expired, policy, at(20))).toEqual({ failures: 1, lockedUntil: null });
  });

  it("describes the lock with the time left and a retry action", () => {
    const error = accountLocked(at(17), at(2));
    expect(error).toMatchObject({ kind: "forbidden", code: "ACCOUNT_LOCKED", action: "RETRY_LATER" });
    expect(error.message).toBe("Too many failed sign-in attempts. Try again in 15 minute(s).");
    expect(error.details).toEqual([{ field: "retryAfterSeconds", message: "900" }]);
  });
});
