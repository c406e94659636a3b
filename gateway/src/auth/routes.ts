import { AppError } from "@study/platform";
import { APIError } from "better-auth";
import { fromNodeHeaders } from "better-auth/node";
import type { Request, RequestHandler, Response } from "express";
import { z } from "zod";
import { errorEnvelope, messageEnvelope, route, type RouteSpec } from "../http/api";
import { sendMessage } from "../http/envelope";
import { CLIENT_IP_HEADER, type Auth } from "./auth";
import { accountLocked, type SignInLockout } from "./lockout";
import type { AuthState, sessionResolver } from "./session";

const email = z.email("must be a valid e-mail address").max(255).transform((v) => v.toLowerCase());
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

/** Headers handed to the auth library: the client's own, plus its address as the gateway saw it. */
export function authHeaders(req: Request): Headers {
  const headers = fromNodeHeaders(req.headers);
  headers.delete(CLIENT_IP_HEADER);
  if (req.ip) headers.set(CLIENT_IP_HEADER, req.ip);
  return headers;
}

export function forwardCookies(from: Headers, res: Response): void {
  const cookies = from.getSetCookie();
  if (cookies.length > 0) res.append("set-cookie", cookies);
}

/** Maps the auth library's refusals to the spec's codes; anything unexpected stays internal. */
function fromAuthError(error: unknown): unknown {
  if (!(error instanceof APIError)) return error;
  const code = (error.body as { code?: string } | undefined)?.code;
  switch (code) {
    case "INVALID_EMAIL_OR_PASSWORD":
    case "INVALID_PASSWORD":
      return new AppError("unauthenticated", "INVALID_CREDENTIALS", "Invalid e-mail or password");
    case "USER_ALREADY_EXISTS":
    case "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL":
      return new AppError("conflict", "EMAIL_ALREADY_REGISTERED", "An account with this e-mail address already exists");
    case "PASSWORD_TOO_SHORT":
    case "PASSWORD_TOO_LONG":
      return AppError.validation("Invalid password", [{ field: "password", message: error.message }]);
    case "INVALID_EMAIL":
      return AppError.validation("Invalid e-mail", [{ field: "email", message: "must be a valid e-mail address" }]);
    default:
      return error;
  }
}

/**
 * The spec's auth endpoints on top of the auth library (whose own routes serve the OAuth flows).
 */
export function authRoutes(deps: {
  auth: Auth;
  lockout: SignInLockout;
  sessions: ReturnType<typeof sessionResolver>;
  /** Rate limiters for the endpoints that take credentials. */
  limit: { signIn: RequestHandler; signUp: RequestHandler };
}): RouteSpec[] {
  const { auth, lockout, sessions } = deps;
  const tag = "Authentication";

  /** Reads back the session just created, in the spec's shape. */
  async function stateForToken(token: string): Promise<AuthState> {
    const state = await auth.api.getSession({ headers: new Headers({ authorization: `Bearer ${token}` }) });
    if (!state) throw AppError.internal("session vanished right after sign-in");
    return state as AuthState;
  }

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
        const result = await auth.api
          .signUpEmail({ body, headers: authHeaders(req), returnHeaders: true })
          .catch((error: unknown) => {
            throw fromAuthError(error);
          });
        if (!result.response.token) throw AppError.internal("sign-up did not start a session");
        forwardCookies(result.headers, res);
        res.status(200).json(authResponse(await stateForToken(result.response.token)));
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
        403: { description: "Locked after repeated failures (ACCOUNT_LOCKED, action RETRY_LATER)", schema: errorEnvelope },
        429: { description: "Too many attempts (RATE_LIMITED)", schema: errorEnvelope },
      },
      async handler({ body, req, res }) {
        await lockout.assertNotLocked(body.email);
        let result;
        try {
          result = await auth.api.signInEmail({ body, headers: authHeaders(req), returnHeaders: true });
        } catch (error) {
          const mapped = fromAuthError(error);
          if (mapped instanceof AppError && mapped.code === "INVALID_CREDENTIALS") {
            const lockedUntil = await lockout.recordFailure(body.email);
            if (lockedUntil) throw accountLocked(lockedUntil, new Date());
          }
          throw mapped;
        }
        await lockout.reset(body.email);
        forwardCookies(result.headers, res);
        res.status(200).json(authResponse(await stateForToken(result.response.token)));
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
      async handler({ req, res }) {
        const result = await auth.api.signOut({ headers: authHeaders(req), returnHeaders: true });
        forwardCookies(result.headers, res);
        sendMessage(res, "Signed out");
      },
    }),
  ];
}
