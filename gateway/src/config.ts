import { amqpUrl, baseConfigSchema, booleanString, postgresUrl, port } from "@study/platform";
import { CATALOGUE, type Catalogue } from "@study/platform/catalogue";
import { existsSync } from "node:fs";
import { join } from "node:path";
import ipaddr from "ipaddr.js";
import { z } from "zod";

/** Express's named address ranges for "trust proxy". */
const TRUST_PROXY_PRESETS = new Set(["loopback", "linklocal", "uniquelocal"]);
const isAddressOrRange = (value: string) =>
  TRUST_PROXY_PRESETS.has(value) || ipaddr.isValid(value) || (value.includes("/") && ipaddr.isValidCIDR(value));

/**
 * Express "trust proxy" from its setting: `true`/`false`, a number of hops (the proxies in front, e.g. `1` behind one
 * ingress), or addresses and ranges (`loopback`, `10.0.0.0/8`, …; comma-separated). Refused at start when it is none
 * of these, rather than by Express on the first request.
 */
const trustProxy = () =>
  z
    .string()
    .default("loopback")
    .transform((value, context) => {
      const text = value.trim();
      if (text === "true" || text === "false") return text === "true";
      if (/^\d+$/.test(text)) return Number(text);
      const parts = text.split(",").map((part) => part.trim());
      if (parts.every(isAddressOrRange)) return parts.join(",");
      context.addIssue({ code: "custom", message: "must be true, false, a number of hops, or addresses/ranges (loopback, 10.0.0.0/8, …)" });
      return z.NEVER;
    });

const grpcAddress = () => z.string().regex(/^[\w.-]+:\d+$/, "must be host:port");

/**
 * One required `host:port` setting per catalogue service (COURSES_GRPC_ADDRESS, …). Typed by name for a
 * literal catalogue (the real one); a catalogue only known at run time adds its settings untyped.
 */
export function grpcAddressSettings<const T extends Catalogue>(catalogue: T) {
  type Variable = T[number]["grpcAddressVariable"];
  return Object.fromEntries(
    catalogue.map((entry) => [entry.grpcAddressVariable, grpcAddress().describe(`The ${entry.name} service's gRPC API.`)]),
  ) as string extends Variable
    ? // eslint-disable-next-line @typescript-eslint/no-generated-empty-object-type -- {} on purpose: run-time-only settings leave the schema's type as it is
      Record<never, never>
    : { [K in Variable]: ReturnType<typeof grpcAddress> };
}

/** A service's internal HTTP endpoint (catalogue `http[].gatewayUrlVariable`); empty counts as unset. */
const internalHttpUrl = () =>
  z
    .string()
    .trim()
    .optional()
    .transform((v) => v || undefined)
    .pipe(z.url({ protocol: /^https?$/ }).optional());

const commaList = z
  .string()
  .default("")
  .transform((v) =>
    v
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
  );

export const gatewayConfigSchema = baseConfigSchema.extend({
  PORT: port(3000).describe("The public HTTP port (API, web app, health)."),
  DATABASE_URL: postgresUrl(),
  DATABASE_POOL_SIZE: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(20)
    .describe("Every request reads its session: more connections than a service's default."),
  RABBITMQ_URL: amqpUrl(),
  EVENT_EXCHANGE: z.string().min(1).default("study.events").describe("The topic exchange of the domain events (queues are `<exchange>.<consumer>`)."),
  ...grpcAddressSettings(CATALOGUE),
  AUTH_SECRET: z.string().min(32, "must be at least 32 characters").describe("Signs session cookies; at least 32 characters."),
  BASE_URL: z.url().describe("Public URL of this gateway (cookies, OAuth callbacks)."),
  CLIENT_URL: z.url().describe("Where GET / sends browsers."),
  TRUSTED_ORIGINS: commaList.describe("Origins allowed to call with credentials, comma-separated (CLIENT_URL is always trusted)."),
  SESSION_EXPIRES_IN_DAYS: z.coerce
    .number()
    .int()
    .min(1)
    .max(3650)
    .default(30)
    .describe("A session lives this long without use; each use renews it (so an active session never expires)."),
  SESSION_RENEW_AFTER_HOURS: z.coerce.number().int().min(1).default(24).describe("How often (at most) a used session's expiry is pushed forward."),
  LOCKOUT_MAX_FAILURES: z.coerce
    .number()
    .int()
    .min(1)
    .default(5)
    .describe("Failed sign-ins in a row of one account from one client address that lock that pair."),
  LOCKOUT_MINUTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(15)
    .describe("How long a locked account and address pair stays locked; also the window of LOCKOUT_ACCOUNT_MAX_FAILURES."),
  LOCKOUT_DELAY_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(3600)
    .default(1)
    .describe("The wait after a pair's first failed sign-in, doubled by each further one until the lock (0: none)."),
  LOCKOUT_ACCOUNT_MAX_FAILURES: z.coerce
    .number()
    .int()
    .min(1)
    .default(20)
    .describe(
      "Failed sign-ins of one account from all addresses within LOCKOUT_MINUTES after which only addresses the account signed in from before may try (the bound on many addresses guessing one password).",
    ),
  GRPC_DEADLINE_MS: z.coerce.number().int().min(50).default(5_000).describe("Deadline of every gRPC call made by the gateway."),
  STUDY_GENERATION_DEADLINE_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .default(180_000)
    .describe("Deadline of study-material generation calls (an AI model may take a while on a long lecture)."),
  CHAT_ANSWER_DEADLINE_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .default(120_000)
    .describe("Deadline of a chat question's whole answer (Ask streams it; an answer engine may take a while on a long answer)."),
  JSON_BODY_LIMIT: z.string().default("1mb").describe("Largest JSON request body (Express's size syntax: `1mb`, `500kb`)."),
  MEDIA_UPLOAD_URL: internalHttpUrl().describe(
    "The media service's internal HTTP endpoint: streamed uploads (audio, attachments) are forwarded to it and stored files (/api/files/…) fetched from it, with the user id signed with INTERNAL_UPLOAD_SECRET (shared with media). Upload and file routes answer 503 when unset.",
  ),
  DOCUMENTS_UPLOAD_URL: internalHttpUrl().describe(
    "The documents service's internal HTTP endpoint: document and syllabus uploads are streamed to it like media's, signed with the same INTERNAL_UPLOAD_SECRET. The document upload routes answer 503 when unset.",
  ),
  INTERNAL_UPLOAD_SECRET: z
    .string()
    .trim()
    .optional()
    .transform((v) => v || undefined)
    .pipe(z.string().min(32, "must be at least 32 characters").optional())
    .describe("Shared with media and documents: signs the user id the gateway forwards to their internal HTTP endpoints."),
  UPLOAD_IDLE_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .default(5 * 60_000)
    .describe("The spec's upload connection timeout: an upload whose client sends nothing for this long ends (CONNECTION_TIMEOUT)."),
  UPLOAD_REQUEST_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .default(10 * 60_000)
    .describe("The spec's upload request timeout: the whole upload, the service's answer included, must end within it (CONNECTION_TIMEOUT)."),
  TRUST_PROXY: trustProxy().describe(
    "Which hops may name the client in X-Forwarded-For (`req.ip`: rate limits, sign-in lockout, sessions' address): `true`/`false`, a number of hops, or addresses and ranges (`loopback`, `10.0.0.0/8`, comma-separated). Compose sets `false`, each k8s overlay `1` (the ingress); left at `loopback` behind an ingress, every client would share its address (one rate-limit bucket, one lockout pair).",
  ),
  AUTH_RATE_LIMIT_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(1)
    .default(30)
    .describe(
      "Requests per client address per minute to sign-in, sign-up, the e-mail endpoints and identity-provider sign-in starts (each endpoint counted on its own).",
    ),
  CALENDAR_FEED_RATE_LIMIT_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(1)
    .default(120)
    .describe(
      "Requests per client address per minute to the public calendar feed (`/api/calendar/feed/{token}.ics`); calendar apps poll, so above the credential endpoints' limit.",
    ),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, "must be an smtp:// or smtps:// URL")
    .optional()
    .describe("Outgoing mail (verification, password reset): SMTP when set, otherwise .eml files in MAIL_OUTBOX_DIR."),
  MAIL_FROM: z.string().min(3).default("Study <no-reply@study.local>").describe("Sender of outgoing mail."),
  MAIL_OUTBOX_DIR: z
    .string()
    .min(1)
    .default(".data/mail")
    .describe("Where mails are written as `.eml` files when SMTP_URL is unset (`npm start`: `<data dir>/mail`)."),
  EMAIL_VERIFICATION_TTL_HOURS: z.coerce.number().int().min(1).max(168).default(24).describe("How long an e-mail verification link works."),
  PASSWORD_RESET_TTL_MINUTES: z.coerce.number().int().min(5).max(1440).default(60).describe("How long a password reset link works."),
  ENABLE_SWAGGER: booleanString(false).describe("Serves Swagger UI at `/docs` (`npm start`: on)."),
  WEB_APP_DIR: z
    .string()
    .trim()
    .optional()
    .transform((v) => v || undefined)
    .refine(
      (dir) => dir === undefined || existsSync(join(dir, "index.html")),
      "must be the web app's build folder (with index.html): run npm run build",
    )
    .describe(
      "The built web app (clients/web/dist): served at /app/ on the API's own origin, so its cookie sessions need no CORS. Unset: no app here (it is deployed elsewhere, at CLIENT_URL). Checked at start: the folder must hold the build's index.html.",
    ),
  GRPC_PORT: port(50050).describe("The gateway's own gRPC API (IdentityService: provider access tokens for other services)."),
  GOOGLE_CLIENT_ID: z
    .string()
    .trim()
    .optional()
    .transform((v) => v || undefined)
    .describe("Google sign-in, enabled when both are set (an empty value counts as unset)."),
  GOOGLE_CLIENT_SECRET: z
    .string()
    .trim()
    .optional()
    .transform((v) => v || undefined)
    .describe("Google sign-in's client secret (with GOOGLE_CLIENT_ID; register `<BASE_URL>/api/auth/callback/google` as redirect URI)."),
  GOOGLE_ISSUER_URL: z
    .url()
    .default("https://accounts.google.com")
    .transform((v) => v.replace(/\/+$/, ""))
    .describe("OpenID Connect issuer of the Google provider; its discovery document names every endpoint."),
  APP_SCHEME: z
    .string()
    .regex(/^[a-z][a-z0-9+.-]*$/, "must be a URL scheme such as studyapp")
    .default("studyapp")
    .describe("Custom URL scheme the desktop and mobile apps register: sign-in ends at `<scheme>://auth/callback`."),
});

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;
