import { createHmac } from "node:crypto";
import { fixedClock } from "@study/platform/clock";
import express, { type Request } from "express";
import { sessionResolver } from "../../../src/identity/adapters/http/session";
import { ResolveSession } from "../../../src/identity/application/resolve-session";
import type { AuthState } from "../../../src/identity/domain/session";
import { InMemorySessions } from "./in-memory-ports";

const SECRET = "a-secret-of-the-gateway-32-characters!";
const at = new Date(Date.UTC(2026, 0, 1, 12));
const timings = { expiresInSeconds: 30 * 24 * 3600, renewAfterSeconds: 24 * 3600 };

/** better-auth's signed cookie value: `<token>.<base64 HMAC-SHA256 of the token with AUTH_SECRET>`. */
const signed = (token: string, secret = SECRET) => `${token}.${createHmac("sha256", secret).update(token).digest("base64")}`;
/** A request as express makes it (its `header()` reads `headers`). */
const request = (headers: Record<string, string>): Request => Object.assign(Object.create(express.request) as Request, { headers });

/** The spec's cookie names (`session_token`, `*.session-token`) and who could have set them. */
describe("session cookies under the spec's names", () => {
  const sessions = new InMemorySessions(fixedClock(at), timings.expiresInSeconds * 1000);
  const resolver = sessionResolver(new ResolveSession(sessions, sessions, timings, fixedClock(at)), { secret: SECRET });
  const store = (token: string, userId: string): AuthState => {
    const state: AuthState = {
      user: { id: userId, name: userId, email: `${userId}@example.com`, emailVerified: true, createdAt: at, updatedAt: at },
      session: { id: `id-${token}`, token, userId, createdAt: at, updatedAt: at, expiresAt: new Date(at.getTime() + 3600_000) },
    };
    sessions.stored.set(token, state);
    return state;
  };
  const attacker = store("attackers-token", "mallory");
  store("victims-token", "victim");

  it("is no session with a raw token: a sibling subdomain could have planted it (Domain=the parent)", async () => {
    for (const cookie of [
      `session_token=${attacker.session.token}`,
      `study.session-token=${attacker.session.token}`,
      `__Secure-study.session-token=${attacker.session.token}`,
      `theme=dark; session_token=${attacker.session.token}`,
    ]) {
      expect(await resolver.resolve(request({ cookie }))).toBeNull();
      expect(await resolver.refusal(request({ cookie }))).toMatchObject({ kind: "unauthenticated", code: "UNAUTHORIZED" });
    }
    expect(sessions.libraryLookUps).toEqual([]);
  });

  it("is the session with the value the gateway signed (URL-encoded or not), never with another key's signature", async () => {
    for (const cookie of [
      `session_token=${signed("victims-token")}`,
      `session_token=${encodeURIComponent(signed("victims-token"))}`,
      `study.session-token=${signed("victims-token")}`,
    ]) {
      expect((await resolver.resolve(request({ cookie })))?.user.id).toBe("victim");
    }
    expect(await resolver.resolve(request({ cookie: `session_token=${signed("victims-token", "another-secret")}` }))).toBeNull();
  });

  it("takes the raw token in a __Host- cookie (only the host itself can set one), before the other spec names", async () => {
    expect((await resolver.resolve(request({ cookie: "__Host-study.session-token=victims-token" })))?.user.id).toBe("victim");
    const planted = `session_token=${attacker.session.token}; __Host-study.session-token=victims-token`;
    expect((await resolver.resolve(request({ cookie: planted })))?.user.id).toBe("victim");
  });

  it("still takes the raw token in the Authorization header (no browser sends one by itself)", async () => {
    expect((await resolver.resolve(request({ authorization: "Bearer victims-token" })))?.user.id).toBe("victim");
  });
});
