import { accountLocked, afterFailure } from "../../../src/identity/domain/lockout";
import { assertUnlinkable } from "../../../src/identity/domain/account";
import { sessionStanding } from "../../../src/identity/domain/session";

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

describe("sign-in methods rule", () => {
  it("lets a user unlink one of several accounts, never the only one, and never another user's", () => {
    expect(() => assertUnlinkable(["a", "b"], "a")).not.toThrow();
    expect(() => assertUnlinkable(["a"], "a")).toThrow(expect.objectContaining({ code: "LAST_SIGN_IN_METHOD", kind: "precondition" }));
    expect(() => assertUnlinkable(["a", "b"], "c")).toThrow(expect.objectContaining({ code: "NOT_FOUND" }));
  });
});

describe("session standing", () => {
  const timings = { expiresInSeconds: 30 * 24 * 3600, renewAfterSeconds: 24 * 3600 };
  const expiresIn = (hours: number) => new Date(at(0).getTime() + hours * 3600_000);
  it("is usable until a day after its last renewal, then due for renewal, then expired", () => {
    expect(sessionStanding(expiresIn(30 * 24 - 1), timings, at(0))).toBe("usable");
    expect(sessionStanding(expiresIn(30 * 24 - 24), timings, at(0))).toBe("due-for-renewal");
    expect(sessionStanding(expiresIn(0), timings, at(0))).toBe("expired");
  });
});
