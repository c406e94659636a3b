import { genericOAuth, type GenericOAuthConfig } from "better-auth/plugins";
import type { GatewayConfig } from "../../../config";

/**
 * Google: the user's identity, read-only access to their calendars, and access to their events (the spec's
 * "read-only calendar access and calendar event access"): the calendar service imports the events and writes
 * the user's own study events back (calendar.events; read-only events would refuse every push with 403).
 */
const GOOGLE_SCOPES = [
  "openid",
  "email",
  "profile",
  "https://www.googleapis.com/auth/calendar.readonly",
  "https://www.googleapis.com/auth/calendar.events",
];

/** An OpenID Connect identity provider; it is offered only when its client id and secret are configured. */
interface IdentityProvider {
  id: string;
  issuerUrl: string;
  clientId?: string;
  clientSecret?: string;
  scopes: string[];
  /** Asks for a refresh token, so other services can act for the user later (Google: offline access + consent). */
  offlineAccess: boolean;
}

/** Every provider the gateway knows; another OpenID Connect provider is one more entry (and its settings). */
function identityProviders(config: GatewayConfig): IdentityProvider[] {
  return [
    {
      id: "google",
      issuerUrl: config.GOOGLE_ISSUER_URL,
      clientId: config.GOOGLE_CLIENT_ID,
      clientSecret: config.GOOGLE_CLIENT_SECRET,
      scopes: GOOGLE_SCOPES,
      offlineAccess: true,
    },
  ];
}

/** The configured providers as entries of the auth library's generic OAuth plugin. */
function providerEntries(config: GatewayConfig): GenericOAuthConfig[] {
  return identityProviders(config).flatMap((provider): GenericOAuthConfig[] =>
    provider.clientId && provider.clientSecret
      ? [
          {
            providerId: provider.id,
            discoveryUrl: `${provider.issuerUrl}/.well-known/openid-configuration`,
            clientId: provider.clientId,
            clientSecret: provider.clientSecret,
            scopes: provider.scopes,
            redirectURI: `${config.BASE_URL}/api/auth/callback/${provider.id}`,
            pkce: true,
            // Identity comes from the ID token, so it must be verified against the provider's JWKS: if
            // discovery fails the provider is unavailable (retried on use) rather than silently unverified.
            requireIdTokenVerification: true,
            ...(provider.offlineAccess ? { accessType: "offline", prompt: "consent" as const } : {}),
          },
        ]
      : [],
  );
}

export const enabledProviderIds = (config: GatewayConfig) => providerEntries(config).map((entry) => entry.providerId);

/** The auth library's OAuth sign-in (authorization code + PKCE, state, nonce-bound ID token). */
export const identityProviderPlugin = (config: GatewayConfig) => genericOAuth({ config: providerEntries(config) });

/** Provider access and refresh tokens are stored encrypted with AUTH_SECRET (the library decrypts on use). */
export const oauthAccountOptions = { encryptOAuthTokens: true };

/**
 * How a sign-in ends. `web`: the browser returns to the client application. `desktop` and `mobile`: the system
 * browser (or browser tab) is handed to the app through its custom scheme, `<APP_SCHEME>://auth/callback`.
 */
export const SIGN_IN_FLOWS = ["web", "desktop", "mobile"] as const;
export type SignInFlow = (typeof SIGN_IN_FLOWS)[number];
export const APP_FLOWS = ["desktop", "mobile"] as const;

export const OAUTH_PATHS = {
  start: (provider: string) => `/api/auth/signin/${encodeURIComponent(provider)}`,
  appComplete: "/api/auth/app-complete",
  error: "/api/auth/oauth-error",
};

/** Where the app receives the outcome of a desktop or mobile sign-in. */
export function appCallbackUrl(config: GatewayConfig, params: Record<string, string>): string {
  return `${config.APP_SCHEME}://auth/callback?${new URLSearchParams(params).toString()}`;
}

/** The gateway route the auth library sends failures to (its `?error=` is turned into the spec's OAUTH_ERROR). */
export function oauthErrorUrl(config: GatewayConfig, flow?: SignInFlow): string {
  return `${config.BASE_URL}${OAUTH_PATHS.error}${flow ? `?flow=${flow}` : ""}`;
}

/** The client-facing OAUTH_ERROR redirect: the client's error page, or the app's callback for app flows. */
export function oauthErrorRedirect(config: GatewayConfig, flow: SignInFlow, reason: string): string {
  const params = { code: "OAUTH_ERROR", reason };
  if (flow === "web") return `${config.CLIENT_URL.replace(/\/+$/, "")}/auth/error?${new URLSearchParams(params).toString()}`;
  return appCallbackUrl(config, params);
}
