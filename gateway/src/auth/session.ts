import type { SqlClient } from "@study/db";
import { AppError } from "@study/platform";
import { parse as parseCookies } from "cookie";
import type { Request, RequestHandler } from "express";
import { fromNodeHeaders } from "better-auth/node";
import { hashToken, type Auth } from "./auth";

export interface AuthenticatedUser {
  id: string;
  name: string;
  email: string;
  emailVerified: boolean;
  image?: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface AuthenticatedSession {
  id: string;
  token: string;
  userId: string;
  expiresAt: Date;
  createdAt: Date;
  updatedAt: Date;
  ipAddress?: string | null;
  userAgent?: string | null;
}

export interface AuthState {
  user: AuthenticatedUser;
  session: AuthenticatedSession;
}

const SESSION_COOKIES = ["better-auth.session_token", "__Secure-better-auth.session_token"];

/** The raw session token a request presents (Bearer header, or the signed session cookie). */
export function presentedToken(req: Request): string | undefined {
  const header = req.header("authorization");
  if (header?.toLowerCase().startsWith("bearer ")) return header.slice(7).trim() || undefined;
  const cookies = req.header("cookie");
  if (!cookies) return undefined;
  const jar = parseCookies(cookies);
  const signed = SESSION_COOKIES.map((name) => jar[name]).find(Boolean);
  return signed?.split(".")[0] || undefined;
}

export function currentAuth(res: { locals: Record<string, unknown> }): AuthState {
  const state = res.locals.auth as AuthState | undefined;
  if (!state) throw AppError.unauthenticated();
  return state;
}

/**
 * Resolves the session (cookie or Bearer) through the auth library, which also renews it on use. Without a
 * valid session the request ends with 401: SESSION_EXPIRED for a token whose session ran out, UNAUTHORIZED
 * otherwise.
 */
export function sessionResolver(auth: Auth, db: SqlClient) {
  async function resolve(req: Request): Promise<AuthState | null> {
    if (!req.header("authorization") && !req.header("cookie")) return null;
    const result = await auth.api.getSession({ headers: fromNodeHeaders(req.headers) });
    return (result as AuthState | null) ?? null;
  }

  async function refusal(req: Request): Promise<AppError> {
    const token = presentedToken(req);
    if (token) {
      const [expired] = await db.$queryRawUnsafe<unknown[]>("SELECT 1 FROM expired_session WHERE token_hash = $1 LIMIT 1", hashToken(token));
      if (expired) return AppError.unauthenticated("Your session has expired. Please sign in again.", "SESSION_EXPIRED");
    }
    return AppError.unauthenticated();
  }

  const requireSession: RequestHandler = async (req, res, next) => {
    const state = await resolve(req);
    if (!state) throw await refusal(req);
    res.locals.auth = state;
    next();
  };

  return { resolve, refusal, requireSession };
}
