import { internalRequestHeaders, verifyInternalRequest } from "../src/internal-request";

const SECRET = "s".repeat(32);

describe("signed internal requests (gateway → service uploads)", () => {
  const request = { method: "POST", path: "/uploads/audio" };

  it("accepts the headers the gateway signed, for that method and path, within the allowed clock skew", () => {
    const headers = internalRequestHeaders(SECRET, { userId: "user-1", ...request }, 1_000_000);
    expect(verifyInternalRequest(SECRET, headers, request, { now: 1_030_000 })).toBe("user-1");
  });

  it("refuses another secret, user, path, a stale timestamp and missing headers", () => {
    const headers = internalRequestHeaders(SECRET, { userId: "user-1", ...request }, 1_000_000);
    expect(verifyInternalRequest("t".repeat(32), headers, request, { now: 1_000_000 })).toBeNull();
    expect(verifyInternalRequest(SECRET, { ...headers, "x-study-user-id": "user-2" }, request, { now: 1_000_000 })).toBeNull();
    expect(verifyInternalRequest(SECRET, headers, { method: "POST", path: "/uploads/notes/x/attachments" }, { now: 1_000_000 })).toBeNull();
    expect(verifyInternalRequest(SECRET, headers, request, { now: 1_000_000 + 61_000 })).toBeNull();
    expect(verifyInternalRequest(SECRET, {}, request)).toBeNull();
    expect(verifyInternalRequest(SECRET, { ...headers, "x-study-signature": "zz" }, request, { now: 1_000_000 })).toBeNull();
  });
});
