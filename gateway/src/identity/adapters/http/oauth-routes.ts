import { randomBytes } from "node:crypto";
import { AppError } from "@study/platform";
import { APIError } from "better-auth";
import { toNodeHandler } from "better-auth/node";
import { parse as parseCookies } from "cookie";
import type { RequestHandler, Response } from "express";
import { z } from "zod";
import type { GatewayConfig } from "../../../config";
import { errorEnvelope, route, type RouteSpec } from "../../../http/api";
import { CLIENT_IP_HEADER, type Auth } from "../better-auth/auth";
import {
  APP_FLOWS,
  appCallbackUrl,
  enabledProviderIds,
  OAUTH_PATHS,
  oauthErrorRedirect,
  oauthErrorUrl,
  SIGN_IN_FLOWS,
  type SignInFlow,
} from "../better-auth/oauth";
import { authHeaders, sendCookies } from "./library-headers";
import type { SessionResolver } from "./session";

const providerParam = z.object({ provider: z.string().min(1).max(64) });
const callbackURL = z
  .url()
  .max(2048)
  .optional()
  .describe("Web flow only: where the browser goes once signed in (a trusted origin; default CLIENT_URL)");
const flow = z.enum(SIGN_IN_FLOWS).default("web").describe("web (default), desktop or mobile: how the sign-in ends");
/**
 * The POST's flow: the spec's desktop and mobile apps send only `{provider}`, so without a flow the sign-in ends in
 * the app (desktop and mobile share the target), unless a `callbackURL` (a web destination) is given.
 */
const appFlowByDefault = z
  .enum(SIGN_IN_FLOWS)
  .optional()
  .describe("web, desktop or mobile: how the sign-in ends; default desktop (the app's scheme), or web when callbackURL is given");
/**
 * The flow of an error report: any value (or none, or several) reads as web, so that the browser always lands on a
 * page; documented as taking anything, which it does.
 */
const errorFlow = z
  .unknown()
  .optional()
  .transform((value): SignInFlow => SIGN_IN_FLOWS.find((name) => name === value) ?? "web")
  .describe("web, desktop or mobile; any other value reads as web");
const webOnlyCallback = (input: { flow?: SignInFlow; callbackURL?: string }) => !input.flow || input.flow === "web" || !input.callbackURL;
const webOnlyCallbackIssue = { path: ["callbackURL"], message: "is only used by the web flow" };

/**
 * Binds an app hand-over to the browser that started the app flow: without it any web page could send a
 * signed-in browser to the hand-over route and push its web session to whatever handles the app's scheme.
 */
const HANDOVER_COOKIE = "study.app_handover";

/** The auth library's error codes are passed on as the reason; anything else (it is echoed to a client) is not. */
const reasonOf = (error: string | undefined) => (error && /^[\w.-]{1,64}$/.test(error) ? error : "unknown_error");

/**
 * Sign-in with an identity provider (OAuth 2.0 authorization code with PKCE, OpenID Connect), run by the auth
 * library: it creates the state (stored server-side and pinned to the browser by a signed cookie), the PKCE
 * verifier and the ID-token nonce, and on the callback checks them, exchanges the code, verifies the ID
 * token, creates or links the user and sets the session cookie. These routes choose where the browser goes
 * before and after, per flow, and turn every failure into OAUTH_ERROR.
 */
export function oauthRoutes(deps: {
  auth: Auth;
  config: GatewayConfig;
  sessions: SessionResolver;
  /** Rate limiter of the sign-in starts (each one stores a state row). */
  limit: RequestHandler;
}): RouteSpec[] {
  const { auth, config, sessions } = deps;
  const tag = "Authentication";
  const enabled = new Set(enabledProviderIds(config));
  const authLibrary = toNodeHandler(auth);

  /** Only URLs on the trusted origins (CLIENT_URL, TRUSTED_ORIGINS) may receive the signed-in browser. */
  async function assertTrustedCallback(url: string | undefined): Promise<void> {
    if (!url) return;
    const context = await auth.$context;
    if (!context.isTrustedOrigin(url, { allowRelativePaths: false })) {
      throw AppError.validation("Invalid callbackURL", [{ field: "callbackURL", message: "must be on a trusted origin" }]);
    }
  }

  const handoverCookie = {
    httpOnly: true,
    sameSite: "lax" as const,
    secure: config.BASE_URL.startsWith("https:"),
    path: OAUTH_PATHS.appComplete,
  };

  /** Marks this browser as the one that started an app flow; the same value rides in the hand-over URL. */
  function startHandover(res: Response): string {
    const handover = randomBytes(24).toString("base64url");
    // As long as the library's state lives (10 minutes).
    res.cookie(HANDOVER_COOKIE, handover, { ...handoverCookie, maxAge: 10 * 60_000 });
    return handover;
  }

  return [
    route({
      method: "get",
      path: "/api/auth/signin/:provider",
      tag,
      summary: "Start signing in with an identity provider: redirects to its consent screen",
      description:
        "Opened in the browser (web) or in the system browser / browser tab by the desktop and mobile apps (the URL " +
        "POST /api/auth/sign-in/social returns). Failures redirect with `code=OAUTH_ERROR&reason=…` to " +
        "`CLIENT_URL/auth/error` (web) or `<APP_SCHEME>://auth/callback` (desktop, mobile).",
      auth: false,
      before: [deps.limit],
      params: providerParam,
      query: z.object({ flow, callbackURL }).refine(webOnlyCallback, webOnlyCallbackIssue),
      responses: {
        302: { description: "To the provider's consent screen, or OAUTH_ERROR (unknown or unavailable provider)" },
        429: { description: "Too many attempts (RATE_LIMITED)", schema: errorEnvelope },
      },
      async handler({ params, query, req, res }) {
        if (!enabled.has(params.provider)) {
          res.redirect(302, oauthErrorRedirect(config, query.flow, "oauth_provider_not_found"));
          return;
        }
        await assertTrustedCallback(query.callbackURL);
        // Where the library sends the browser once signed in.
        const completion =
          query.flow === "web"
            ? (query.callbackURL ?? config.CLIENT_URL)
            : `${config.BASE_URL}${OAUTH_PATHS.appComplete}?${new URLSearchParams({ flow: query.flow, handover: startHandover(res) }).toString()}`;
        const started = await auth.api
          .signInSocial({
            body: {
              provider: params.provider,
              callbackURL: completion,
              errorCallbackURL: oauthErrorUrl(config, query.flow),
              disableRedirect: true,
            },
            headers: authHeaders(req),
            returnHeaders: true,
          })
          .catch((error: unknown) => {
            // A configured provider the library does not offer: its discovery document could not be fetched.
            if (error instanceof APIError && (error.body as { code?: string } | undefined)?.code === "PROVIDER_NOT_FOUND") return null;
            throw error;
          });
        if (!started?.response.url) {
          res.redirect(302, oauthErrorRedirect(config, query.flow, "provider_unavailable"));
          return;
        }
        sendCookies(res, started.headers.getSetCookie());
        res.redirect(302, started.response.url);
      },
    }),
    route({
      method: "post",
      path: "/api/auth/sign-in/social",
      tag,
      summary: "The URL that starts signing in with an identity provider (to open in a browser)",
      description:
        "Desktop and mobile apps open the URL in the system browser or a browser tab; the sign-in ends at " +
        "`<APP_SCHEME>://auth/callback?session_token=<URL-encoded <token>.<userId>>`, where the part before the first " +
        "dot is the Bearer token. The URL leads through the gateway, so the state cookie lands in that browser. " +
        '`{provider}` alone (as the apps send it) gives this app flow; `flow: "web"` or a `callbackURL` gives the web ' +
        "flow, which ends back at `callbackURL` (default CLIENT_URL) with the session cookie.",
      auth: false,
      before: [deps.limit],
      body: z
        .object({ provider: z.string().min(1).max(64), flow: appFlowByDefault, callbackURL })
        .refine(webOnlyCallback, webOnlyCallbackIssue)
        .transform(({ flow: requested, ...rest }) => ({ ...rest, flow: requested ?? (rest.callbackURL ? "web" : "desktop") })),
      responses: {
        200: { description: "The URL to open", schema: z.object({ url: z.url() }).meta({ id: "SocialSignInUrl" }) },
        400: { description: "Unknown or disabled provider (OAUTH_ERROR), or invalid input (VALIDATION_ERROR)", schema: errorEnvelope },
        429: { description: "Too many attempts (RATE_LIMITED)", schema: errorEnvelope },
      },
      async handler({ body, res }) {
        if (!enabled.has(body.provider)) {
          throw new AppError("validation", "OAUTH_ERROR", `Sign-in with "${body.provider}" is not available`);
        }
        await assertTrustedCallback(body.callbackURL);
        const start = new URL(`${config.BASE_URL}${OAUTH_PATHS.start(body.provider)}`);
        start.searchParams.set("flow", body.flow);
        if (body.callbackURL) start.searchParams.set("callbackURL", body.callbackURL);
        res.status(200).json({ url: start.toString() });
      },
    }),
    route({
      method: "get",
      path: "/api/auth/callback/:provider",
      tag,
      summary: "Where the identity provider returns: completes the sign-in (creates or links the user, sets the session cookie)",
      auth: false,
      params: providerParam,
      responses: {
        302: { description: "To the flow's destination when signed in; otherwise OAUTH_ERROR (denied consent, bad state, failed code exchange, …)" },
      },
      async handler({ params, req, res }) {
        // A provider that is not offered has no sign-in to complete. Answered here: the library would read a provider of
        // "." or ".." as a path segment, resolve the URL to its base path and answer an empty 404.
        if (!enabled.has(params.provider)) {
          res.redirect(302, oauthErrorRedirect(config, "web", "oauth_provider_not_found"));
          return;
        }
        // The library's own callback endpoint (basePath /api/auth) does all the checks; it records this address on the session.
        // eslint-disable-next-line @typescript-eslint/no-dynamic-delete -- a constant header name; the header object must lose the key, not hold undefined
        delete req.headers[CLIENT_IP_HEADER];
        if (req.ip) req.headers[CLIENT_IP_HEADER] = req.ip;
        await authLibrary(req, res);
      },
    }),
    route({
      method: "get",
      path: OAUTH_PATHS.appComplete,
      tag,
      summary: "Hands a desktop or mobile sign-in that just completed in the browser over to the app",
      description:
        "The library's destination after an app flow's callback. Redirects to `<APP_SCHEME>://auth/callback?session_token=" +
        "<URL-encoded <token>.<userId>>` and removes the session cookie from the browser (the session now belongs to the " +
        "app) — only when `handover` matches the cookie set where this browser started the flow; otherwise OAUTH_ERROR.",
      auth: false,
      query: z.object({ flow: z.enum(APP_FLOWS), handover: z.string().max(100).default("") }),
      responses: { 302: { description: "To the app's custom scheme, with the session token or OAUTH_ERROR" } },
      async handler({ query, req, res }) {
        const started = parseCookies(req.header("cookie") ?? "")[HANDOVER_COOKIE];
        res.clearCookie(HANDOVER_COOKIE, handoverCookie);
        if (!query.handover || started !== query.handover) {
          res.redirect(302, oauthErrorRedirect(config, query.flow, "handover_not_started"));
          return;
        }
        const state = await sessions.resolve(req);
        if (!state) {
          res.redirect(302, oauthErrorRedirect(config, query.flow, "session_not_found"));
          return;
        }
        const { name, attributes } = (await auth.$context).authCookies.sessionToken;
        res.clearCookie(name, { path: attributes.path, domain: attributes.domain, secure: attributes.secure, httpOnly: true, sameSite: "lax" });
        res.redirect(302, appCallbackUrl(config, { session_token: `${state.session.token}.${state.user.id}` }));
      },
    }),
    route({
      method: "get",
      path: OAUTH_PATHS.error,
      tag,
      summary: "Where the auth library reports an OAuth failure: redirects to the client with OAUTH_ERROR",
      auth: false,
      query: z.object({ flow: errorFlow, error: z.string().optional() }),
      responses: {
        302: {
          description: "To `CLIENT_URL/auth/error?code=OAUTH_ERROR&reason=…` (web) or `<APP_SCHEME>://auth/callback?code=OAUTH_ERROR&reason=…`",
        },
      },
      handler({ query, res }) {
        res.redirect(302, oauthErrorRedirect(config, query.flow, reasonOf(query.error)));
      },
    }),
  ];
}
