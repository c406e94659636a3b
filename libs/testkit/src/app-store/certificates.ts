// @peculiar/x509 resolves its ASN.1 codecs through tsyringe, which needs the Reflect metadata API loaded first.
import "reflect-metadata";
import { KeyObject, webcrypto } from "node:crypto";
import * as x509 from "@peculiar/x509";

/**
 * A certificate chain shaped like Apple's App Store signing chain, made in the test: root CA → intermediate CA →
 * leaf. `SignedDataVerifier` of @apple/app-store-server-library accepts data signed with the leaf when the root is
 * one of its configured root certificates (tests configure it instead of Apple's roots).
 */

/** Marker extension the verifier requires on the intermediate (Apple Worldwide Developer Relations CA). */
export const APPLE_INTERMEDIATE_EXTENSION_OID = "1.2.840.113635.100.6.2.1";
/** Marker extension the verifier requires on the leaf (App Store receipt signing). */
export const APPLE_LEAF_EXTENSION_OID = "1.2.840.113635.100.6.11.1";

const ROOT_NAME = "CN=Study Test App Store Root CA, OU=Test Certification Authority, O=Study Service Tests, C=US";
const INTERMEDIATE_NAME = "CN=Study Test Worldwide Developer Relations CA, OU=G6, O=Study Service Tests, C=US";
const LEAF_NAME = "CN=Study Test App Store Receipt Signing, OU=Test Signing, O=Study Service Tests, C=US";

const DAY_MS = 24 * 60 * 60 * 1000;
const ES256 = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };
/** DER of ASN.1 NULL: the value Apple gives its marker extensions. */
const ASN1_NULL = new Uint8Array([0x05, 0x00]);

x509.cryptoProvider.set(webcrypto);

/** A certificate authority made here: its certificate and the key that signs what it issues. */
export interface AppStoreCertificateAuthority {
  /** DER. */
  certificate: Buffer;
  privateKey: webcrypto.CryptoKey;
}

export interface AppStoreCertificateOptions {
  /**
   * Issue the chain under this root (e.g. the one a running service was configured with) instead of a new one.
   * With `untrustedRoot` it is still the root reported as `rootCertificate`, the one the verifier should trust.
   */
  root?: AppStoreCertificateAuthority;
  /**
   * The leaf's validity ended a day ago. Offline, the verifier checks validity at the payload's `signedDate`, so
   * data signed "now" (the signer's default) is refused; data signed while the leaf was valid is still accepted.
   */
  expiredLeaf?: boolean;
  /** The leaf lacks Apple's marker extension 1.2.840.113635.100.6.11.1. */
  leafWithoutAppleExtension?: boolean;
  /**
   * The intermediate is issued by another root of the same name (an impostor): `rootCertificate` stays the trusted
   * root, the x5c header carries the impostor.
   */
  untrustedRoot?: boolean;
  /** The x5c header leaves out the intermediate: [leaf, root]. */
  shortChain?: boolean;
}

export interface AppStoreCertificates {
  /** DER of the root to trust: `new SignedDataVerifier([rootCertificate], false, …)`. */
  rootCertificate: Buffer;
  /** The same root, base64 DER: for a service configured through the environment. */
  rootCertificateBase64: string;
  /** The trusted root with its key, to issue more chains under it (`createAppStoreCertificates({ root })`). */
  root: AppStoreCertificateAuthority;
  /** DER of the leaf and of the intermediate actually used by this chain. */
  leafCertificate: Buffer;
  intermediateCertificate: Buffer;
  /** The JWS header's x5c: base64 DER, leaf first (normally [leaf, intermediate, root]). */
  x5c: string[];
  /** The leaf's private key: ES256 signatures of the payloads. */
  signingKey: KeyObject;
}

/** Creates a fresh key pair and certificate chain (a few milliseconds); the options make the broken variants. */
export async function createAppStoreCertificates(options: AppStoreCertificateOptions = {}): Promise<AppStoreCertificates> {
  const now = Date.now();
  const caValidity = { notBefore: new Date(now - 5 * 365 * DAY_MS), notAfter: new Date(now + 5 * 365 * DAY_MS) };
  const leafValidity = options.expiredLeaf ? { notBefore: new Date(now - 30 * DAY_MS), notAfter: new Date(now - DAY_MS) } : caValidity;

  const root = options.root ?? (await createRootAuthority(caValidity));
  const issuingRoot = options.untrustedRoot ? await createRootAuthority(caValidity) : root;
  const issuingRootName = new x509.X509Certificate(issuingRoot.certificate).subject;

  const intermediateKeys = await generateKeyPair();
  const intermediate = await x509.X509CertificateGenerator.create({
    subject: INTERMEDIATE_NAME,
    issuer: issuingRootName,
    publicKey: intermediateKeys.publicKey,
    signingKey: issuingRoot.privateKey,
    signingAlgorithm: ES256,
    ...caValidity,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      new x509.Extension(APPLE_INTERMEDIATE_EXTENSION_OID, false, ASN1_NULL),
    ],
  });

  const leafKeys = await generateKeyPair();
  const leafExtensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
  ];
  if (!options.leafWithoutAppleExtension) {
    leafExtensions.push(new x509.Extension(APPLE_LEAF_EXTENSION_OID, false, ASN1_NULL));
  }
  const leaf = await x509.X509CertificateGenerator.create({
    subject: LEAF_NAME,
    issuer: intermediate.subject,
    publicKey: leafKeys.publicKey,
    signingKey: intermediateKeys.privateKey,
    signingAlgorithm: ES256,
    ...leafValidity,
    extensions: leafExtensions,
  });

  const leafCertificate = Buffer.from(leaf.rawData);
  const intermediateCertificate = Buffer.from(intermediate.rawData);
  const chain = options.shortChain ? [leafCertificate, issuingRoot.certificate] : [leafCertificate, intermediateCertificate, issuingRoot.certificate];
  return {
    rootCertificate: root.certificate,
    rootCertificateBase64: root.certificate.toString("base64"),
    root,
    leafCertificate,
    intermediateCertificate,
    x5c: chain.map((certificate) => certificate.toString("base64")),
    signingKey: KeyObject.from(leafKeys.privateKey),
  };
}

async function createRootAuthority(validity: { notBefore: Date; notAfter: Date }): Promise<AppStoreCertificateAuthority> {
  const keys = await generateKeyPair();
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    name: ROOT_NAME,
    keys,
    signingAlgorithm: ES256,
    ...validity,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
    ],
  });
  return { certificate: Buffer.from(certificate.rawData), privateKey: keys.privateKey };
}

async function generateKeyPair(): Promise<webcrypto.CryptoKeyPair> {
  // extractable: the leaf's private key becomes a node:crypto KeyObject for synchronous signing
  return webcrypto.subtle.generateKey(ES256, true, ["sign", "verify"]);
}
