import { newId } from "@study/grpc/ids";
import { createEvent, envelopeToJson } from "@study/events";
import { betterAuth, getCurrentAdapter, type BetterAuthPlugin } from "better-auth";
import { bearer } from "better-auth/plugins";
import type { Logger } from "@study/platform";
import type { Pool } from "pg";
import type { GatewayConfig } from "../../../config";
import type { SessionTimings } from "../../domain/session";
import { passwordResetMail, verificationMail, type Mailer, type MailMessage } from "../mail/mail";
import { hashToken } from "../token-hash";
import { identityProviderPlugin, oauthAccountOptions, oauthErrorUrl } from "./oauth";

/** Header through which the gateway tells the auth library the client's address (set from req.ip, never trusted from the client). */
export const CLIENT_IP_HEADER = "x-study-client-ip";

/** Session lifetime and renewal age in seconds, as the auth library and the gateway's session lookup both use them. */
export const sessionTimings = (config: GatewayConfig): SessionTimings => ({
  expiresInSeconds: config.SESSION_EXPIRES_IN_DAYS * 24 * 3600,
  renewAfterSeconds: config.SESSION_RENEW_AFTER_HOURS * 3600,
});

/**
 * Lets the auth library write into the platform outbox table, so that `UserRegistered` is stored in the same
 * database transaction as the new user (sign-up runs in one transaction).
 */
const outboxTable = {
  id: "study-outbox",
  schema: {
    outboxMessage: {
      modelName: "outbox_message",
      fields: {
        type: { type: "string", required: true },
        payload: { type: "json", required: true },
        createdAt: { type: "date", required: true, fieldName: "created_at" },
      },
    },
    expiredSession: {
      modelName: "expired_session",
      fields: {
        tokenHash: { type: "string", required: true, fieldName: "token_hash" },
        expiredAt: { type: "date", required: true, fieldName: "expired_at" },
      },
    },
  },
} satisfies BetterAuthPlugin;

/** Where the e-mail links lead: verification is confirmed by the API itself, a new password is typed into the client. */
export const verificationLink = (config: GatewayConfig, token: string) =>
  `${config.BASE_URL}/api/auth/verify-email?token=${encodeURIComponent(token)}`;
export const passwordResetLink = (config: GatewayConfig, token: string) => `${config.CLIENT_URL}/reset-password?token=${encodeURIComponent(token)}`;

export interface AuthHooks {
  mailer: Mailer;
  logger: Logger;
  /** After a password reset (which proves control of the mailbox), e.g. to lift a sign-in lock. */
  onPasswordReset(email: string): Promise<void>;
}

export function createAuth(pool: Pool, config: GatewayConfig, hooks: AuthHooks) {
  // Mails go out in the background: the request neither waits for the mail server nor reveals by its timing
  // whether an address has an account. A failed delivery is logged; the user can ask again.
  const sendInBackground = (message: MailMessage) => {
    hooks.mailer.send(message).catch((error: unknown) => hooks.logger.error({ err: error, subject: message.subject }, "mail delivery failed"));
  };
  const auth = betterAuth({
    appName: "Study Service",
    baseURL: config.BASE_URL,
    basePath: "/api/auth",
    secret: config.AUTH_SECRET,
    database: pool,
    trustedOrigins: [config.CLIENT_URL, ...config.TRUSTED_ORIGINS],
    telemetry: { enabled: false },
    // Rate limiting and lockout are the gateway's own (see application/sign-in-lockout.ts); the library's is in-memory only.
    rateLimit: { enabled: false },
    logger: { level: "error" },
    emailAndPassword: {
      enabled: true,
      autoSignIn: true,
      minPasswordLength: 8,
      maxPasswordLength: 128,
      resetPasswordTokenExpiresIn: config.PASSWORD_RESET_TTL_MINUTES * 60,
      revokeSessionsOnPasswordReset: true,
      async onPasswordReset({ user }) {
        await hooks.onPasswordReset(user.email);
      },
      async sendResetPassword({ user, token }) {
        sendInBackground(passwordResetMail(user.email, user.name, passwordResetLink(config, token), `${config.PASSWORD_RESET_TTL_MINUTES} minutes`));
      },
    },
    emailVerification: {
      sendOnSignUp: true,
      expiresIn: config.EMAIL_VERIFICATION_TTL_HOURS * 3600,
      async sendVerificationEmail({ user, token }) {
        sendInBackground(verificationMail(user.email, user.name, verificationLink(config, token), `${config.EMAIL_VERIFICATION_TTL_HOURS} hours`));
      },
    },
    session: {
      expiresIn: sessionTimings(config).expiresInSeconds,
      updateAge: sessionTimings(config).renewAfterSeconds,
    },
    advanced: {
      database: { generateId: () => newId() },
      ipAddress: { ipAddressHeaders: [CLIENT_IP_HEADER] },
    },
    plugins: [bearer(), outboxTable, identityProviderPlugin(config)],
    account: oauthAccountOptions,
    // OAuth failures the library cannot attribute to a sign-in flow (e.g. a missing state) end as OAUTH_ERROR too.
    onAPIError: { errorURL: oauthErrorUrl(config) },
    databaseHooks: {
      user: {
        create: {
          async after(user) {
            const event = createEvent("gateway", user.id, {
              $case: "userRegistered",
              value: { userId: user.id, name: user.name, email: user.email },
            });
            const adapter = await getCurrentAdapter((await auth.$context).adapter);
            await adapter.create({
              model: "outboxMessage",
              data: { id: event.id, type: event.type, payload: envelopeToJson(event), createdAt: new Date() },
              forceAllowId: true,
            });
          },
        },
      },
      session: {
        delete: {
          // The library deletes a session when it is used after expiry; a tombstone lets the gateway answer
          // SESSION_EXPIRED (rather than UNAUTHORIZED) for that token afterwards.
          async before(session) {
            if (new Date(session.expiresAt) > new Date()) return;
            const adapter = await getCurrentAdapter((await auth.$context).adapter);
            await adapter.create({
              model: "expiredSession",
              data: { tokenHash: hashToken(session.token), expiredAt: new Date(session.expiresAt) },
            });
          },
        },
      },
    },
  });
  return auth;
}

export type Auth = ReturnType<typeof createAuth>;
