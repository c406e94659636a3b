import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express, { type Request, type Response } from "express";
import { exportJWK, generateKeyPair, SignJWT, type JWK } from "jose";

/** The person signed in at the provider: whoever authorizes next gets these claims. */
export interface ProviderUser {
  sub: string;
  email: string;
  name: string;
  emailVerified?: boolean;
}

/** What the relying party asked for at the authorization endpoint (for assertions on scopes, PKCE, ...). */
export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  scope: string[];
  state: string | null;
  nonce: string | null;
  codeChallenge: string | null;
  codeChallengeMethod: string | null;
  accessType: string | null;
  prompt: string | null;
}

export interface IssuedTokens {
  sub: string;
  accessToken: string;
  refreshToken: string | null;
  grant: "authorization_code" | "refresh_token";
}

export interface LocalOidcProvider {
  /** `http://127.0.0.1:<port>`: discovery lives at `<issuer>/.well-known/openid-configuration`. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Who consents at the next authorization. */
  signInAs(user: ProviderUser): void;
  /** The next authorization answers `error=access_denied` (the user refused consent). */
  denyNextConsent(): void;
  /** The next token request fails with `invalid_grant` (e.g. a code the provider no longer honours). */
  failNextTokenExchange(): void;
  /** Refresh tokens of this subject stop working (the user revoked the app's access). */
  revokeRefreshTokens(sub: string): void;
  /** The subject an access token issued here belongs to (e.g. to let the Google Calendar stand-in accept it). */
  subjectOf(accessToken: string): string | undefined;
  authorizations: AuthorizationRequest[];
  issued: IssuedTokens[];
  close(): Promise<void>;
}

interface PendingCode {
  clientId: string;
  redirectUri: string;
  scope: string[];
  nonce: string | null;
  codeChallenge: string;
  offline: boolean;
  user: ProviderUser;
  expiresAt: number;
}

const ACCESS_TOKEN_LIFETIME_SECONDS = 3600;
const opaque = (prefix: string) => `${prefix}.${randomBytes(24).toString("base64url")}`;
const s256 = (verifier: string) => createHash("sha256").update(verifier).digest("base64url");
const first = (value: unknown): string | null => (typeof value === "string" ? value : null);

/**
 * A small OAuth 2.0 / OpenID Connect provider on loopback, shaped like Google's: discovery, an authorization
 * endpoint that consents at once (PKCE S256 required, `access_type=offline` yields a refresh token), a token
 * endpoint (authorization_code with PKCE verification and client_secret_post or _basic; refresh_token),
 * userinfo, and RS256 ID tokens verifiable through the JWKS endpoint. Switches make the next consent or
 * token exchange fail, for the error paths.
 */
export async function startOidcProvider(options: { clientId?: string; clientSecret?: string } = {}): Promise<LocalOidcProvider> {
  const clientId = options.clientId ?? `client-${randomUUID()}.apps.local`;
  const clientSecret = options.clientSecret ?? randomBytes(24).toString("base64url");
  const { privateKey, publicKey } = await generateKeyPair("RS256");
  const kid = randomUUID();
  const publicJwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" };

  let user: ProviderUser | null = null;
  let denyConsent = false;
  let failTokenExchange = false;
  const revokedSubjects = new Set<string>();
  const codes = new Map<string, PendingCode>();
  const refreshTokens = new Map<string, { sub: string; user: ProviderUser; scope: string[] }>();
  const accessTokens = new Map<string, ProviderUser>();
  const authorizations: AuthorizationRequest[] = [];
  const issued: IssuedTokens[] = [];

  const app = express();
  app.use(express.urlencoded({ extended: false }));
  let issuer = "";

  const oauthError = (res: Response, status: number, error: string, description: string) =>
    res.status(status).json({ error, error_description: description });

  function idToken(subject: ProviderUser, nonce: string | null): Promise<string> {
    const claims: Record<string, unknown> = {
      email: subject.email,
      email_verified: subject.emailVerified ?? true,
      name: subject.name,
    };
    if (nonce) claims.nonce = nonce;
    return new SignJWT(claims)
      .setProtectedHeader({ alg: "RS256", kid, typ: "JWT" })
      .setIssuer(issuer)
      .setSubject(subject.sub)
      .setAudience(clientId)
      .setIssuedAt()
      .setExpirationTime("1h")
      .sign(privateKey);
  }

  /** client_secret_basic or client_secret_post. */
  function clientAuthenticated(req: Request): boolean {
    const header = req.header("authorization");
    if (header?.startsWith("Basic ")) {
      const [id, secret] = Buffer.from(header.slice(6), "base64").toString("utf8").split(":").map(decodeURIComponent);
      return id === clientId && secret === clientSecret;
    }
    return req.body?.client_id === clientId && req.body?.client_secret === clientSecret;
  }

  app.get("/.well-known/openid-configuration", (_req, res) => {
    res.json({
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      userinfo_endpoint: `${issuer}/userinfo`,
      jwks_uri: `${issuer}/jwks`,
      response_types_supported: ["code"],
      subject_types_supported: ["public"],
      id_token_signing_alg_values_supported: ["RS256"],
      scopes_supported: ["openid", "email", "profile"],
      token_endpoint_auth_methods_supported: ["client_secret_post", "client_secret_basic"],
      code_challenge_methods_supported: ["S256"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      authorization_response_iss_parameter_supported: true,
    });
  });

  app.get("/jwks", (_req, res) => {
    res.json({ keys: [publicJwk] });
  });

  app.get("/authorize", (req, res) => {
    const request: AuthorizationRequest = {
      clientId: first(req.query.client_id) ?? "",
      redirectUri: first(req.query.redirect_uri) ?? "",
      scope: (first(req.query.scope) ?? "").split(" ").filter(Boolean),
      state: first(req.query.state),
      nonce: first(req.query.nonce),
      codeChallenge: first(req.query.code_challenge),
      codeChallengeMethod: first(req.query.code_challenge_method),
      accessType: first(req.query.access_type),
      prompt: first(req.query.prompt),
    };
    authorizations.push(request);
    // Like a real provider, errors about the client itself are shown to the user, never redirected.
    if (request.clientId !== clientId) return res.status(400).send("unknown client_id");
    if (!URL.canParse(request.redirectUri)) return res.status(400).send("invalid redirect_uri");
    const back = new URL(request.redirectUri);
    back.searchParams.set("iss", issuer);
    if (request.state) back.searchParams.set("state", request.state);
    const refuse = (error: string) => {
      back.searchParams.set("error", error);
      res.redirect(302, back.toString());
      return res;
    };
    if (first(req.query.response_type) !== "code") return refuse("unsupported_response_type");
    if (!request.codeChallenge || request.codeChallengeMethod !== "S256") return refuse("invalid_request");
    if (!user) return refuse("login_required");
    if (denyConsent) {
      denyConsent = false;
      return refuse("access_denied");
    }
    const code = opaque("code");
    codes.set(code, {
      clientId: request.clientId,
      redirectUri: request.redirectUri,
      scope: request.scope,
      nonce: request.nonce,
      codeChallenge: request.codeChallenge,
      offline: request.accessType === "offline",
      user,
      expiresAt: Date.now() + 60_000,
    });
    back.searchParams.set("code", code);
    res.redirect(302, back.toString());
  });

  app.post("/token", async (req, res) => {
    if (!clientAuthenticated(req)) return oauthError(res, 401, "invalid_client", "client authentication failed");
    if (failTokenExchange) {
      failTokenExchange = false;
      return oauthError(res, 400, "invalid_grant", "the provider refused this exchange");
    }
    const grantType = req.body?.grant_type;
    if (grantType === "authorization_code") {
      const pending = codes.get(String(req.body.code ?? ""));
      codes.delete(String(req.body.code ?? ""));
      if (!pending || pending.expiresAt < Date.now()) return oauthError(res, 400, "invalid_grant", "unknown, used or expired code");
      if (pending.redirectUri !== req.body.redirect_uri)
        return oauthError(res, 400, "invalid_grant", "redirect_uri differs from the authorization request");
      const verifier = String(req.body.code_verifier ?? "");
      if (!verifier || s256(verifier) !== pending.codeChallenge) return oauthError(res, 400, "invalid_grant", "PKCE verification failed");
      const accessToken = opaque("access");
      accessTokens.set(accessToken, pending.user);
      const refreshToken = pending.offline ? opaque("refresh") : null;
      if (refreshToken) refreshTokens.set(refreshToken, { sub: pending.user.sub, user: pending.user, scope: pending.scope });
      issued.push({ sub: pending.user.sub, accessToken, refreshToken, grant: "authorization_code" });
      return res.json({
        token_type: "Bearer",
        access_token: accessToken,
        expires_in: ACCESS_TOKEN_LIFETIME_SECONDS,
        scope: pending.scope.join(" "),
        id_token: await idToken(pending.user, pending.nonce),
        ...(refreshToken ? { refresh_token: refreshToken } : {}),
      });
    }
    if (grantType === "refresh_token") {
      const grant = refreshTokens.get(String(req.body.refresh_token ?? ""));
      if (!grant || revokedSubjects.has(grant.sub)) return oauthError(res, 400, "invalid_grant", "Token has been expired or revoked.");
      const accessToken = opaque("access");
      accessTokens.set(accessToken, grant.user);
      issued.push({ sub: grant.sub, accessToken, refreshToken: null, grant: "refresh_token" });
      // Like Google: the refresh token stays the same and is not sent again.
      return res.json({ token_type: "Bearer", access_token: accessToken, expires_in: ACCESS_TOKEN_LIFETIME_SECONDS, scope: grant.scope.join(" ") });
    }
    return oauthError(res, 400, "unsupported_grant_type", `grant_type ${String(grantType)} is not supported`);
  });

  app.get("/userinfo", (req, res) => {
    const token = req.header("authorization")?.replace(/^Bearer /, "") ?? "";
    const owner = accessTokens.get(token);
    if (!owner) return oauthError(res, 401, "invalid_token", "unknown access token");
    res.json({ sub: owner.sub, email: owner.email, email_verified: owner.emailVerified ?? true, name: owner.name });
  });

  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
  });
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    issuer,
    clientId,
    clientSecret,
    authorizations,
    issued,
    signInAs(next) {
      user = next;
    },
    denyNextConsent() {
      denyConsent = true;
    },
    failNextTokenExchange() {
      failTokenExchange = true;
    },
    revokeRefreshTokens(sub) {
      revokedSubjects.add(sub);
    },
    subjectOf: (accessToken) => accessTokens.get(accessToken)?.sub,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
