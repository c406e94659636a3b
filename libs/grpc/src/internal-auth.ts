import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import {
  InterceptingCall,
  Metadata,
  status as GrpcStatus,
  type Interceptor,
  type MethodDefinition,
  type ServiceDefinition,
  type ServiceError,
  type UntypedHandleCall,
  type UntypedServiceImplementation,
} from "@grpc/grpc-js";
import { decodeProtectedHeader, jwtVerify, SignJWT } from "jose";

/**
 * Internal calls carry a signed, short-lived service token: each process (the gateway, a service, a worker) holds
 * its own Ed25519 key and signs a JWT per callee (`kid` and `iss` its name, `aud` the callee's gRPC service,
 * valid five minutes); a server knows the public keys of the processes it trusts and refuses a call without a
 * valid token (UNAUTHENTICATED), or from a process a service does not accept (PERMISSION_DENIED). One key per
 * process rather than one shared secret: a service cannot speak as another (the gateway's IdentityService gives
 * Google tokens to the calendar service only). The health service stays open: probes carry no token.
 */
export const AUTHORIZATION_METADATA = "authorization";

const TOKEN_LIFETIME_SECONDS = 300;
/** A cached token is replaced this long before it expires, so a call never leaves with one about to expire. */
const RENEW_BEFORE_MS = 60_000;
/** Verified tokens kept (a token is verified once, then looked up): one per caller and callee in practice. */
const VERIFIED_CACHE_LIMIT = 1_000;

/** A process's own key: base64 of its PKCS#8 DER form (one line, fit for an environment variable). */
export function parseInternalAuthKey(text: string): KeyObject {
  const key = createPrivateKey({ key: Buffer.from(text.trim(), "base64"), format: "der", type: "pkcs8" });
  if (key.asymmetricKeyType !== "ed25519") throw new Error(`must be an Ed25519 key, not ${key.asymmetricKeyType}`);
  return key;
}

/** The trusted callers' public keys: `name=<base64 SPKI DER>` pairs separated by commas. */
export function parseTrustedKeys(text: string): Map<string, KeyObject> {
  const keys = new Map<string, KeyObject>();
  for (const pair of text
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean)) {
    const equals = pair.indexOf("=");
    const name = pair.slice(0, equals).trim();
    if (equals < 1 || !/^[a-z][a-z0-9-]*$/u.test(name)) throw new Error(`"${pair.slice(0, 40)}" is not name=<base64 public key>`);
    const key = createPublicKey({ key: Buffer.from(pair.slice(equals + 1).trim(), "base64"), format: "der", type: "spki" });
    if (key.asymmetricKeyType !== "ed25519") throw new Error(`the key of ${name} must be an Ed25519 key`);
    keys.set(name, key);
  }
  if (keys.size === 0) throw new Error("names no public key");
  return keys;
}

/** Keys of a set of processes in the settings' formats: each one's INTERNAL_AUTH_KEY, and INTERNAL_AUTH_PUBLIC_KEYS. */
export interface InternalAuthKeys {
  privateKeys: Record<string, string>;
  publicKeys: string;
}

/** New keys for the named processes. */
export function generateInternalAuthKeys(names: readonly string[]): InternalAuthKeys {
  const privateKeys: Record<string, string> = {};
  const publicKeys: string[] = [];
  for (const name of names) {
    const { privateKey, publicKey } = generateKeyPairSync("ed25519");
    privateKeys[name] = privateKey.export({ format: "der", type: "pkcs8" }).toString("base64");
    publicKeys.push(`${name}=${publicKey.export({ format: "der", type: "spki" }).toString("base64")}`);
  }
  return { privateKeys, publicKeys: publicKeys.join(",") };
}

/** Signs this process's tokens, one per callee, reused until shortly before it expires. */
export class ServiceTokenSigner {
  private readonly tokens = new Map<string, { token: Promise<string>; renewAt: number }>();

  constructor(
    readonly name: string,
    private readonly key: KeyObject,
  ) {}

  token(audience: string, now = Date.now()): Promise<string> {
    const cached = this.tokens.get(audience);
    if (cached && cached.renewAt > now) return cached.token;
    const token = new SignJWT({})
      .setProtectedHeader({ alg: "EdDSA", kid: this.name })
      .setIssuer(this.name)
      .setAudience(audience)
      .setIssuedAt(Math.floor(now / 1000))
      .setExpirationTime(Math.floor(now / 1000) + TOKEN_LIFETIME_SECONDS)
      .sign(this.key);
    this.tokens.set(audience, { token, renewAt: now + TOKEN_LIFETIME_SECONDS * 1000 - RENEW_BEFORE_MS });
    token.catch(() => this.tokens.delete(audience));
    return token;
  }
}

export type CallerCheck = { caller: string } | { refusal: string };

/** Checks tokens against the trusted keys; a token verified once is then only looked up until it expires. */
export class ServiceTokenVerifier {
  private readonly verified = new Map<string, { caller: string; audience: string; expiresAt: number }>();

  constructor(private readonly trusted: ReadonlyMap<string, KeyObject>) {}

  async check(authorization: string | undefined, audience: string, now = Date.now()): Promise<CallerCheck> {
    if (!authorization?.startsWith("Bearer ")) return { refusal: "an internal call needs a service token" };
    const token = authorization.slice("Bearer ".length);
    const known = this.verified.get(token);
    if (known && known.expiresAt > now) {
      return known.audience === audience ? { caller: known.caller } : { refusal: "the service token is for another service" };
    }
    try {
      const { kid } = decodeProtectedHeader(token);
      const key = kid ? this.trusted.get(kid) : undefined;
      if (!kid || !key) return { refusal: "the service token's signer is not trusted" };
      const { payload } = await jwtVerify(token, key, {
        algorithms: ["EdDSA"],
        issuer: kid,
        audience,
        currentDate: new Date(now),
        requiredClaims: ["exp", "iat"],
        maxTokenAge: TOKEN_LIFETIME_SECONDS,
      });
      if (this.verified.size >= VERIFIED_CACHE_LIMIT) this.verified.clear();
      this.verified.set(token, { caller: kid, audience, expiresAt: (payload.exp ?? 0) * 1000 });
      return { caller: kid };
    } catch {
      return { refusal: "the service token is not valid" };
    }
  }
}

let processSigner: ServiceTokenSigner | undefined;

/**
 * The key this process signs its calls with (the runtime sets it from INTERNAL_AUTH_KEY at start); every client
 * made by `createClient` then sends a token. Undefined: calls go without one (tests of a single service).
 */
export function useServiceIdentity(signer: ServiceTokenSigner | undefined): void {
  processSigner = signer;
}

/** A client interceptor adding this process's token for `audience` (the callee's gRPC service) to every call. */
export function serviceTokenInterceptor(audience: string): Interceptor {
  return (options, nextCall) =>
    new InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        const signer = processSigner;
        if (!signer) {
          next(metadata, listener);
          return;
        }
        // grpc-js holds the call's message and half-close until `next` runs.
        signer.token(audience).then(
          (token) => {
            metadata.set(AUTHORIZATION_METADATA, `Bearer ${token}`);
            next(metadata, listener);
          },
          () => next(metadata, listener),
        );
      },
    });
}

/** What every kind of server call has: the metadata the client sent. */
interface AnyCall {
  readonly metadata: Metadata;
}

/**
 * The implementation with each call's service token checked first. `callers` limits the service to those
 * processes (e.g. the calendar for IdentityService); without it, any trusted process may call.
 */
export function authenticatedImplementation(
  definition: ServiceDefinition,
  implementation: UntypedServiceImplementation,
  verifier: ServiceTokenVerifier,
  callers?: readonly string[],
): UntypedServiceImplementation {
  const guarded: UntypedServiceImplementation = {};
  for (const [name, handler] of Object.entries(implementation)) {
    const method: MethodDefinition<unknown, unknown> | undefined = definition[name];
    if (!method) {
      guarded[name] = handler;
      continue;
    }
    const audience = method.path.split("/")[1];
    const admit = async (call: AnyCall): Promise<Partial<ServiceError> | null> => {
      const value = call.metadata.get(AUTHORIZATION_METADATA)[0];
      const check = await verifier.check(typeof value === "string" ? value : undefined, audience);
      if ("refusal" in check) return { code: GrpcStatus.UNAUTHENTICATED, details: check.refusal, metadata: new Metadata() };
      if (callers && !callers.includes(check.caller)) {
        return { code: GrpcStatus.PERMISSION_DENIED, details: `${audience} does not answer ${check.caller}`, metadata: new Metadata() };
      }
      return null;
    };
    const invoke = handler as (call: AnyCall, callback?: (error: Partial<ServiceError> | null) => void) => void;
    guarded[name] = (
      method.responseStream || method.requestStream
        ? (call: AnyCall & { emit(event: "error", error: Partial<ServiceError>): boolean }) => {
            void admit(call).then((refusal) => (refusal ? call.emit("error", refusal) : invoke(call)));
          }
        : (call: AnyCall, callback: (error: Partial<ServiceError> | null) => void) => {
            void admit(call).then((refusal) => (refusal ? callback(refusal) : invoke(call, callback)));
          }
    ) as UntypedHandleCall;
  }
  return guarded;
}
