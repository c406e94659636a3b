import { generateKeyPairSync } from "node:crypto";
import { generateInternalAuthKeys, parseInternalAuthKey, parseTrustedKeys, ServiceTokenSigner, ServiceTokenVerifier } from "../../src/internal-auth";

const COURSES = "study.courses.v1.CoursesService";

describe("service tokens", () => {
  const keys = generateInternalAuthKeys(["gateway", "calendar"]);
  const trusted = parseTrustedKeys(keys.publicKeys);
  const gateway = new ServiceTokenSigner("gateway", parseInternalAuthKey(keys.privateKeys.gateway));
  const now = Date.parse("2026-11-29T10:00:00Z");

  it("names the signer of a valid token for this service", async () => {
    const verifier = new ServiceTokenVerifier(trusted);
    expect(await verifier.check(`Bearer ${await gateway.token(COURSES, now)}`, COURSES, now)).toEqual({ caller: "gateway" });
  });

  it("refuses a missing, forged, impersonating, misdirected, expired or tampered token", async () => {
    const verifier = new ServiceTokenVerifier(trusted);
    const stranger = generateKeyPairSync("ed25519").privateKey;
    const valid = await gateway.token(COURSES, now);
    const [header, payload, signature] = valid.split(".");
    const tampered = [header, Buffer.from(JSON.stringify({ iss: "calendar", aud: COURSES })).toString("base64url"), signature].join(".");
    const cases = {
      missing: undefined,
      "not bearer": `Basic ${valid}`,
      forged: `Bearer ${await new ServiceTokenSigner("gateway", stranger).token(COURSES, now)}`,
      "unknown signer": `Bearer ${await new ServiceTokenSigner("intruder", stranger).token(COURSES, now)}`,
      misdirected: `Bearer ${await gateway.token("study.media.v1.MediaService", now)}`,
      expired: `Bearer ${await new ServiceTokenSigner("gateway", parseInternalAuthKey(keys.privateKeys.gateway)).token(COURSES, now - 301_000)}`,
      tampered: `Bearer ${tampered}`,
      garbage: `Bearer ${payload}`,
    };
    const answers = Object.fromEntries(
      await Promise.all(Object.entries(cases).map(async ([name, authorization]) => [name, await verifier.check(authorization, COURSES, now)])),
    );
    expect(answers).toEqual({
      missing: { refusal: "an internal call needs a service token" },
      "not bearer": { refusal: "an internal call needs a service token" },
      forged: { refusal: "the service token is not valid" },
      "unknown signer": { refusal: "the service token's signer is not trusted" },
      misdirected: { refusal: "the service token is not valid" },
      expired: { refusal: "the service token is not valid" },
      tampered: { refusal: "the service token is not valid" },
      garbage: { refusal: "the service token is not valid" },
    });
  });

  it("reuses a token until a minute before it expires, and a verified one stops counting once expired", async () => {
    const signer = new ServiceTokenSigner("gateway", parseInternalAuthKey(keys.privateKeys.gateway));
    const first = await signer.token(COURSES, now);
    expect(await signer.token(COURSES, now + 239_000)).toBe(first);
    const renewed = await signer.token(COURSES, now + 241_000);
    expect(renewed).not.toBe(first);

    const verifier = new ServiceTokenVerifier(trusted);
    expect(await verifier.check(`Bearer ${first}`, COURSES, now)).toEqual({ caller: "gateway" });
    expect(await verifier.check(`Bearer ${first}`, "study.media.v1.MediaService", now)).toEqual({
      refusal: "the service token is for another service",
    });
    expect(await verifier.check(`Bearer ${first}`, COURSES, now + 301_000)).toEqual({ refusal: "the service token is not valid" });
  });

  it("reads keys in the settings' formats, and says what is wrong with a bad one", () => {
    expect([...parseTrustedKeys(keys.publicKeys).keys()]).toEqual(["gateway", "calendar"]);
    expect(() => parseTrustedKeys("gateway")).toThrow('"gateway" is not name=<base64 public key>');
    expect(() => parseTrustedKeys("")).toThrow("names no public key");
    const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 }).privateKey.export({ format: "der", type: "pkcs8" }).toString("base64");
    expect(() => parseInternalAuthKey(rsa)).toThrow("must be an Ed25519 key, not rsa");
  });
});
