import { createHmac, timingSafeEqual } from "node:crypto";
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

export interface SessionSettings {
  /** The auth library's secret, with which it signs session cookies (and signed Bearer tokens). */
  secret: string;
  expiresInSeconds: number;
  /** A session is renewed (its expiry pushed out) once it is older than this since its last renewal. */
  renewAfterSeconds: number;
}

/** Marks a request that presented a signed value with a wrong signature: refused, not looked up anywhere. */
const REFUSED = Symbol("refused");

/**
 * The token of a signed value `token.signature`, or REFUSED when the signature is wrong. The auth library signs
 * with HMAC-SHA256 and writes the signature in padded base64 (44 characters); only that exact text is accepted.
 * Comparing decoded bytes would also accept texts that differ in base64's unused low bits of the last character.
 */
function verifiedSignedToken(value: string, secret: string): string | typeof REFUSED {
  const decoded = value.includes("%") ? safeDecode(value) : value;
  const dot = decoded?.lastIndexOf(".") ?? -1;
  if (!decoded || dot < 1) return REFUSED;
  const token = decoded.slice(0, dot);
  const signature = Buffer.from(decoded.slice(dot + 1));
  const expected = Buffer.from(createHmac("sha256", secret).update(token).digest("base64"));
  return signature.length === expected.length && timingSafeEqual(signature, expected) ? token : REFUSED;
}

function safeDecode(value: string): string | null {
  try {
    return decodeURIComponent(value);
  } catch {
    return null;
  }
}

/**
 * The session token the request proves: a raw Bearer token, or a correctly signed Bearer token or cookie;
 * null when it presents none.
 */
function provenToken(req: Request, secret: string): string | typeof REFUSED | null {
  const header = req.header("authorization");
  if (header?.toLowerCase().startsWith("bearer ")) {
    const token = header.slice(7).trim();
    if (!token) return null;
    return token.includes(".") ? verifiedSignedToken(token, secret) : token;
  }
  const cookies = req.header("cookie");
  if (!cookies) return null;
  const jar = parseCookies(cookies);
  const signed = SESSION_COOKIES.map((name) => jar[name]).find(Boolean);
  return signed ? verifiedSignedToken(signed, secret) : null;
}

interface SessionRow {
  id: string;
  token: string;
  userId: string;
  expiresAt: Date;
  createdAt: Date;
  updatedAt: Date;
  ipAddress: string | null;
  userAgent: string | null;
  userName: string;
  userEmail: string;
  userEmailVerified: boolean;
  userImage: string | null;
  userCreatedAt: Date;
  userUpdatedAt: Date;
}

const SESSION_WITH_USER = `
  SELECT s.id, s.token, s."userId", s."expiresAt", s."createdAt", s."updatedAt", s."ipAddress", s."userAgent",
         u.name AS "userName", u.email AS "userEmail", u."emailVerified" AS "userEmailVerified", u.image AS "userImage",
         u."createdAt" AS "userCreatedAt", u."updatedAt" AS "userUpdatedAt"
  FROM "session" s JOIN "user" u ON u.id = s."userId"
  WHERE s.token = $1`;

/**
 * Resolves the session (cookie or Bearer). Without a valid session the request ends with 401: SESSION_EXPIRED
 * for a token whose session ran out, UNAUTHORIZED otherwise.
 *
 * Every request reads the session from the database (a revoked session is refused at once), but the common case
 * costs one HMAC and one query: a valid session that is not yet due for renewal is answered here. Everything
 * else (unknown token, expired, due for renewal) goes through the auth library, which renews,
 * deletes expired sessions and decides exactly as it does for its own endpoints. The library's lookup costs
 * several HMACs and queries per request; it was half of the gateway's CPU (docs/PERFORMANCE.md).
 */
export function sessionResolver(auth: Auth, db: SqlClient, settings: SessionSettings) {
  /** The session when this request can be answered here; REFUSED for a wrong signature; null to ask the library. */
  async function fromDatabase(req: Request): Promise<AuthState | typeof REFUSED | null> {
    const token = provenToken(req, settings.secret);
    if (token === REFUSED) return REFUSED;
    if (!token) return null;
    const [row] = await db.$queryRawUnsafe<SessionRow[]>(SESSION_WITH_USER, token);
    if (!row) return null;
    const now = Date.now();
    const expiresAt = new Date(row.expiresAt).getTime();
    const dueForRenewal = expiresAt - settings.expiresInSeconds * 1000 + settings.renewAfterSeconds * 1000 <= now;
    if (expiresAt <= now || dueForRenewal) return null;
    return {
      session: {
        id: row.id,
        token: row.token,
        userId: row.userId,
        expiresAt: new Date(row.expiresAt),
        createdAt: new Date(row.createdAt),
        updatedAt: new Date(row.updatedAt),
        ipAddress: row.ipAddress,
        userAgent: row.userAgent,
      },
      user: {
        id: row.userId,
        name: row.userName,
        email: row.userEmail,
        emailVerified: row.userEmailVerified,
        image: row.userImage,
        createdAt: new Date(row.userCreatedAt),
        updatedAt: new Date(row.userUpdatedAt),
      },
    };
  }

  async function resolve(req: Request): Promise<AuthState | null> {
    if (!req.header("authorization") && !req.header("cookie")) return null;
    const fast = await fromDatabase(req);
    // The library would accept a signature whose last character differs in unused bits; a wrong one stops here.
    if (fast === REFUSED) return null;
    if (fast) return fast;
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
