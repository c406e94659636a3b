import type { RequestHandler } from "express";
import { z } from "zod";
import { errorEnvelope, messageEnvelope, route, type RouteSpec } from "../../../http/api";
import { sendMessage } from "../../../http/envelope";
import type { SignInLockout } from "../../application/sign-in-lockout";
import type { AuthState } from "../../domain/session";
import type { BetterAuthCredentials } from "../better-auth/library-adapters";
import { clientKey } from "./client-address";
import { authHeaders, sendCookies } from "./library-headers";
import type { SessionResolver } from "./session";

const email = z
  .email("must be a valid e-mail address")
  .max(255)
  .transform((v) => v.toLowerCase());
const signUpBody = z.object({
  name: z.string().trim().min(1, "is required").max(255),
  email,
  password: z.string().min(8, "must be at least 8 characters").max(128, "must be at most 128 characters"),
});
const signInBody = z.object({ email, password: z.string().min(1, "is required").max(128) });

export const userSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    email: z.string(),
    emailVerified: z.boolean(),
    image: z.string().nullable(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: "User" });
export const sessionSchema = z
  .object({
    id: z.string(),
    expiresAt: z.iso.datetime(),
    token: z.string(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    ipAddress: z.string().nullable(),
    userAgent: z.string().nullable(),
  })
  .meta({ id: "Session" });
const authResponseSchema = z.object({ user: userSchema, session: sessionSchema }).meta({ id: "AuthResponse" });

/** The spec's authentication response: {user, session}. */
export function authResponse(state: AuthState) {
  const { user, session } = state;
  return {
    user: {
      id: user.id,
      name: user.name,
      email: user.email,
      emailVerified: user.emailVerified,
      image: user.image ?? null,
      createdAt: user.createdAt,
      updatedAt: user.updatedAt,
    },
    session: {
      id: session.id,
      expiresAt: session.expiresAt,
      token: session.token,
      createdAt: session.createdAt,
      updatedAt: session.updatedAt,
      ipAddress: session.ipAddress ?? null,
      userAgent: session.userAgent ?? null,
    },
  };
}

/**
 * The spec's auth endpoints on top of the auth library (whose own routes serve the OAuth flows).
 */
export function authRoutes(deps: {
  credentials: BetterAuthCredentials;
  lockout: SignInLockout;
  sessions: SessionResolver;
  /** Rate limiters for the endpoints that take credentials. */
  limit: { signIn: RequestHandler; signUp: RequestHandler };
}): RouteSpec[] {
  const { credentials, lockout, sessions } = deps;
  const tag = "Authentication";

  return [
    route({
      method: "post",
      path: "/api/auth/signup",
      tag,
      summary: "Create an account with e-mail and password, and sign in",
      auth: false,
      before: [deps.limit.signUp],
      body: signUpBody,
      responses: {
        200: { description: "Signed up and in; sets the session cookie", schema: authResponseSchema },
        409: { description: "The e-mail is taken (EMAIL_ALREADY_REGISTERED)", schema: errorEnvelope },
        429: { description: "Too many attempts (RATE_LIMITED)", schema: errorEnvelope },
      },
      async handler({ body, req, res }) {
        const { state, setCookies } = await credentials.signUp(body, authHeaders(req));
        sendCookies(res, setCookies);
        res.status(200).json(authResponse(state));
      },
    }),
    route({
      method: "post",
      path: "/api/auth/signin",
      tag,
      summary: "Sign in with e-mail and password",
      auth: false,
      before: [deps.limit.signIn],
      body: signInBody,
      responses: {
        200: { description: "Signed in; sets the session cookie", schema: authResponseSchema },
        401: { description: "Wrong e-mail or password (INVALID_CREDENTIALS)", schema: errorEnvelope },
        403: {
          description:
            "Locked after repeated failures from this client address, or the account is under attack from many addresses and this one " +
            "never signed in to it (ACCOUNT_LOCKED, action RETRY_LATER, details retryAfterSeconds); a password reset lifts it",
          schema: errorEnvelope,
        },
        429: {
          description: "Too many attempts from this address (RATE_LIMITED), or a wait after a failed sign-in (Retry-After says how long)",
          schema: errorEnvelope,
        },
      },
      async handler({ body, req, res }) {
        const { state, setCookies } = await lockout.attempt(body.email, clientKey(req.ip), () => credentials.signIn(body, authHeaders(req)));
        sendCookies(res, setCookies);
        res.status(200).json(authResponse(state));
      },
    }),
    route({
      method: "get",
      path: "/api/auth/session",
      tag,
      summary: "The current session (cookie or Bearer token)",
      auth: false,
      responses: {
        200: { description: "Signed in", schema: authResponseSchema },
        401: { description: "No session (UNAUTHORIZED) or an expired one (SESSION_EXPIRED)", schema: errorEnvelope },
      },
      async handler({ req, res }) {
        const state = await sessions.resolve(req);
        if (!state) throw await sessions.refusal(req);
        res.status(200).json(authResponse(state));
      },
    }),
    route({
      method: "post",
      path: "/api/auth/signout",
      tag,
      summary: "End the current session",
      auth: true,
      responses: { 200: { description: "Signed out; clears the cookie", schema: messageEnvelope } },
      async handler({ authSession, req, res }) {
        sendCookies(res, await credentials.signOut(authSession.token, authHeaders(req)));
        sendMessage(res, "Signed out");
      },
    }),
  ];
}
