import { accountLocked, afterAccountFailure, afterFailure, delayAfter, refusalOf, type FailureState } from "../../../src/identity/domain/lockout";
import { assertUnlinkable } from "../../../src/identity/domain/account";
import { sessionStanding } from "../../../src/identity/domain/session";

const policy = { maxFailures: 3, lockMinutes: 15, delaySeconds: 2, accountMaxFailures: 4 };
const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 12, minute));

describe("sign-in lockout rule", () => {
  const none = { failures: 0, lockedUntil: null, lastFailureAt: null, known: false };
  const seconds = (n: number) => new Date(at(0).getTime() + n * 1000);

  it("locks a pair after the configured number of failures in a row, for the configured time", () => {
    let state: FailureState = none;
    state = afterFailure(state, policy, at(0));
    state = afterFailure(state, policy, at(1));
    expect(state).toEqual({ failures: 2, lockedUntil: null, lastFailureAt: at(1), known: false });
    state = afterFailure(state, policy, at(2));
    expect(state).toEqual({ failures: 3, lockedUntil: at(17), lastFailureAt: at(2), known: false });
    expect(refusalOf(state, null, policy, at(16))).toMatchObject({ code: "ACCOUNT_LOCKED" });
  });

  it("starts counting afresh once a lock has run out", () => {
    const expired = { failures: 3, lockedUntil: at(17), lastFailureAt: at(2), known: true };
    expect(afterFailure(expired, policy, at(20))).toEqual({ failures: 1, lockedUntil: null, lastFailureAt: at(20), known: true });
    expect(refusalOf(expired, null, policy, at(20))).toBeNull();
  });

  it("makes a pair wait after each failure before the lock, twice as long each time", () => {
    expect([0, 1, 2, 3].map((failures) => delayAfter(failures, policy))).toEqual([0, 2, 4, 0]);
    expect(delayAfter(4, { ...policy, maxFailures: 10, delaySeconds: 1 })).toBe(8);
    expect(delayAfter(2, { ...policy, delaySeconds: 0 })).toBe(0);
    const once = afterFailure(none, policy, seconds(0));
    expect(refusalOf(once, null, policy, seconds(1))).toMatchObject({
      kind: "rate_limited",
      code: "RATE_LIMITED",
      details: [{ field: "retryAfterSeconds", message: "1" }],
    });
    expect(refusalOf(once, null, policy, seconds(2))).toBeNull();
  });

  it("throttles an account over all addresses for addresses it never signed in from, until the window ends", () => {
    let account = afterAccountFailure(null, policy, at(0));
    for (let i = 1; i < policy.accountMaxFailures; i++) account = afterAccountFailure(account, policy, at(1));
    expect(account).toEqual({ windowStartedAt: at(0), failures: policy.accountMaxFailures });
    expect(refusalOf(none, account, policy, at(5))).toMatchObject({
      code: "ACCOUNT_LOCKED",
      details: [{ field: "retryAfterSeconds", message: "600" }],
    });
    expect(refusalOf({ ...none, known: true }, account, policy, at(5))).toBeNull();
    expect(refusalOf(none, account, policy, at(15))).toBeNull();
    expect(afterAccountFailure(account, policy, at(15))).toEqual({ windowStartedAt: at(15), failures: 1 });
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
