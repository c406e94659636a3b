import { createHmac, timingSafeEqual } from "node:crypto";
import { AppError } from "@study/platform";
import { parse as parseCookies } from "cookie";
import type { Request, RequestHandler } from "express";
import type { AuthState } from "../../domain/session";
import type { ResolveSession } from "../../application/resolve-session";

export type { AuthenticatedSession, AuthenticatedUser, AuthState } from "../../domain/session";

/** better-auth's own session cookie ("__Secure-" in front when BASE_URL is https); it always holds a signed value. */
const LIBRARY_SESSION_COOKIES = ["better-auth.session_token", "__Secure-better-auth.session_token"];
/** The spec's names for the session cookie: `session_token`, and a dotted name ending in `.session-token`. */
const SPEC_SESSION_COOKIE = "session_token";
const DOTTED_SESSION_COOKIE = /^[\w-]+(\.[\w-]+)*\.session-token$/;
/**
 * Browsers take a cookie named `__Host-…` only from the host itself (Secure, Path=/, no Domain), so no sibling
 * subdomain can plant one: only such a name may carry the raw token.
 */
const HOST_ONLY_PREFIX = "__Host-";

/**
 * The session cookie a request carries, first found of: better-auth's own (which the gateway sets), then a
 * dotted name ending in `.session-token` with the `__Host-` prefix, then the spec's `session_token`, then any other
 * dotted name ending in `.session-token` (e.g. `study.session-token`).
 * `signedOnly`: the value must be the library's signed value `token.signature`. A cookie without the `__Host-`
 * prefix may have been set by a sibling subdomain (Domain=the parent): a raw token in it is refused, so that a page
 * elsewhere on the domain cannot sign a visitor into an account of its choosing with a token it learned outside a
 * cookie (the app callback, a Bearer header); only the value the gateway itself signed is accepted there.
 */
function sessionCookie(req: Request): { value: string; signedOnly: boolean } | null {
  const header = req.header("cookie");
  if (!header) return null;
  const jar = parseCookies(header);
  const library = LIBRARY_SESSION_COOKIES.map((name) => jar[name]).find(Boolean);
  if (library) return { value: library, signedOnly: true };
  const dotted = Object.entries(jar).filter((entry): entry is [string, string] => Boolean(entry[1]) && DOTTED_SESSION_COOKIE.test(entry[0]));
  const hostOnly = dotted.find(([name]) => name.startsWith(HOST_ONLY_PREFIX));
  if (hostOnly) return { value: hostOnly[1], signedOnly: false };
  const named = jar[SPEC_SESSION_COOKIE] || dotted[0]?.[1];
  return named ? { value: named, signedOnly: true } : null;
}

/** The credential as presented: the Bearer header's value, otherwise the session cookie's. */
function presentedCredential(req: Request): { value: string; signedOnly: boolean } | null {
  const header = req.header("authorization");
  if (header?.toLowerCase().startsWith("bearer ")) {
    const token = header.slice(7).trim();
    if (token) return { value: token, signedOnly: false };
  }
  return sessionCookie(req);
}

/**
 * The session token a request presents, before any signature check (the part before a signature's dot); none for
 * an unsigned value where only a signed one is taken.
 */
export function presentedToken(req: Request): string | undefined {
  const credential = presentedCredential(req);
  if (!credential || (credential.signedOnly && !safeDecode(credential.value)?.includes("."))) return undefined;
  return credential.value.split(".")[0] || undefined;
}

export function currentAuth(res: { locals: Record<string, unknown> }): AuthState {
  const state = res.locals.auth as AuthState | undefined;
  if (!state) throw AppError.unauthenticated();
  return state;
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
 * The session token the request proves, null when it presents none. A Bearer header or a `__Host-` cookie holds
 * the raw token or the library's signed value `token.signature` (URL-encoded or not); a value with a dot must
 * carry a valid signature. better-auth's own cookie and the other spec-named cookies must be signed.
 */
function provenToken(req: Request, secret: string): string | typeof REFUSED | null {
  const credential = presentedCredential(req);
  if (!credential) return null;
  if (credential.signedOnly || credential.value.includes(".")) return verifiedSignedToken(credential.value, secret);
  return credential.value;
}

/**
 * Resolves the session (Bearer header or session cookie) of a request. `requireSession` ends a request without
 * a valid session with 401: SESSION_EXPIRED for a token whose session ran out, UNAUTHORIZED otherwise.
 */
export function sessionResolver(resolveSession: ResolveSession, settings: { secret: string }) {
  async function resolve(req: Request): Promise<AuthState | null> {
    const token = provenToken(req, settings.secret);
    // The library would accept a signature whose last character differs in unused bits; a wrong one stops here.
    return resolveSession.execute(token === REFUSED ? null : token);
  }

  const refusal = (req: Request): Promise<AppError> => resolveSession.refusal(presentedToken(req) ?? null);

  const requireSession: RequestHandler = async (req, res, next) => {
    const state = await resolve(req);
    if (!state) throw await refusal(req);
    res.locals.auth = state;
    next();
  };

  return { resolve, refusal, requireSession };
}

export type SessionResolver = ReturnType<typeof sessionResolver>;
