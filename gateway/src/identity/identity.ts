import type { TransactionalClient } from "@study/db";
import type { Logger } from "@study/platform";
import type { Pool } from "pg";
import type { GatewayConfig } from "../config";
import { credentialRateLimit } from "../http/rate-limit";
import { AccountDetails } from "./application/account-details";
import { ConfirmEmail, RequestEmailVerification } from "./application/email-verification";
import { systemClock, type Clock } from "@study/platform/clock";
import { GetProviderAccessToken } from "./application/provider-access-token";
import { ResolveSession } from "./application/resolve-session";
import { RevokeSession } from "./application/revoke-session";
import { SignInLockout } from "./application/sign-in-lockout";
import { UnlinkAccount } from "./application/unlink-account";
import { createAuth, sessionTimings } from "./adapters/better-auth/auth";
import {
  BetterAuthAccountDirectory,
  BetterAuthCredentials,
  BetterAuthEmailVerifier,
  BetterAuthProviderTokens,
  BetterAuthSessions,
} from "./adapters/better-auth/library-adapters";
import { identityService } from "./adapters/grpc/identity-service";
import { accountRoutes } from "./adapters/http/account-routes";
import { authRoutes } from "./adapters/http/auth-routes";
import { emailRoutes } from "./adapters/http/email-routes";
import { oauthRoutes } from "./adapters/http/oauth-routes";
import { sessionResolver } from "./adapters/http/session";
import { mailerFor, type Mailer } from "./adapters/mail/mail";
import { PgAccountRepository } from "./adapters/sql/pg-account-repository";
import { PgSessionRepository } from "./adapters/sql/pg-session-repository";
import { PgSignInFailureRepository } from "./adapters/sql/pg-sign-in-failure-repository";
import { PgVerificationTokenLedger } from "./adapters/sql/pg-verification-token-ledger";

export interface IdentityDependencies {
  /** The gateway's database: better-auth's tables, sign-in failures, tombstones, used verification tokens. */
  pool: Pool;
  db: TransactionalClient;
  config: GatewayConfig;
  logger: Logger;
  /** Default: SMTP when SMTP_URL is set, otherwise .eml files in MAIL_OUTBOX_DIR. */
  mailer?: Mailer;
  clock?: Clock;
}

/**
 * Composition of the identity hexagon (auth at the edge): better-auth and SQL adapters behind the use cases'
 * ports; out come the session resolver every route uses, the HTTP routes and the IdentityService gRPC service.
 */
export function createIdentity(deps: IdentityDependencies) {
  const { pool, db, config, logger } = deps;
  const clock = deps.clock ?? systemClock;
  const lockout = new SignInLockout(
    new PgSignInFailureRepository(db),
    {
      maxFailures: config.LOCKOUT_MAX_FAILURES,
      lockMinutes: config.LOCKOUT_MINUTES,
      delaySeconds: config.LOCKOUT_DELAY_SECONDS,
      accountMaxFailures: config.LOCKOUT_ACCOUNT_MAX_FAILURES,
    },
    clock,
  );
  const auth = createAuth(pool, config, {
    mailer: deps.mailer ?? mailerFor(config, logger),
    logger,
    onPasswordReset: (email) => lockout.lift(email),
  });

  const directory = new BetterAuthAccountDirectory(auth);
  const librarySessions = new BetterAuthSessions(auth);
  const verifier = new BetterAuthEmailVerifier(auth);
  const credentials = new BetterAuthCredentials(auth);
  const sessions = sessionResolver(new ResolveSession(new PgSessionRepository(pool), librarySessions, sessionTimings(config), clock), {
    secret: config.AUTH_SECRET,
  });
  const limit = (name: string) => credentialRateLimit(name, config.AUTH_RATE_LIMIT_PER_MINUTE);

  return {
    auth,
    sessions,
    routes: [
      ...authRoutes({ credentials, lockout, sessions, limit: { signIn: limit("sign-in"), signUp: limit("sign-up") } }),
      ...emailRoutes({
        requestVerification: new RequestEmailVerification(verifier),
        confirmEmail: new ConfirmEmail(new PgVerificationTokenLedger(db), verifier),
        credentials,
        clientUrl: config.CLIENT_URL,
        limit: limit("e-mail"),
      }),
      ...oauthRoutes({ auth, config, sessions, limit: limit("oauth") }),
      ...accountRoutes({
        accountDetails: new AccountDetails(directory),
        unlinkAccount: new UnlinkAccount(new PgAccountRepository(db)),
        revokeSession: new RevokeSession(directory, librarySessions),
      }),
    ],
    grpcService: identityService(new GetProviderAccessToken(new BetterAuthProviderTokens(auth), clock), logger),
  };
}

export type Identity = ReturnType<typeof createIdentity>;
