import { lookup as dnsLookup } from "node:dns/promises";
import ipaddr from "ipaddr.js";
import type { Logger } from "@study/platform";
import { AppError, required } from "@study/platform/errors";

/**
 * Which URLs the service may fetch on a user's behalf (SSRF protection), shared by the HTTP downloader and the
 * video source.
 *
 * A URL passes when it is http(s) and its host name resolves to at least one permitted address; the caller
 * then connects to exactly that checked address (see `OutboundTarget`), so a second, different DNS answer
 * cannot slip in. An address is permitted when it is globally routable unicast, or the allow-list says so.
 * Refused by default: loopback, private (10/8, 172.16/12, 192.168/16, fc00::/7), link-local (169.254/16,
 * fe80::/10), carrier-grade NAT (100.64/10), unspecified, multicast, broadcast, reserved and documentation
 * ranges, IPv6 outside 2000::/3 and the IPv6 transition ranges (6to4, Teredo), and the cloud metadata
 * addresses below. IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::/96) addresses are judged by the IPv4
 * address inside.
 *
 * Allow-list (setting `MEDIA_DOWNLOAD_ALLOWLIST`): entries separated by commas and/or white space, each one of
 *   - `host` or `host:port`          — a host name as written in the URL (`localhost`, `media.internal:8080`),
 *                                      or `*.corp.example` for its subdomains; any address the name resolves to
 *                                      is then permitted (on that port only, when a port is given);
 *   - `address` or `address:port`    — an IP address (`127.0.0.1`, `127.0.0.1:9000`, `::1`, `[::1]:9000`),
 *                                      matched against resolved addresses (so also for names resolving to it);
 *   - `address/prefix`               — a CIDR range of resolved addresses (`10.20.0.0/16`, `fd12::/48`), any port.
 * A cloud metadata address is only ever permitted by its exact address entry, never by a host name or range.
 *
 * A refused host gets one generic answer, the same whether its name does not resolve or resolves to an address
 * the service may not reach (URL_NOT_ALLOWED, `HOST_REFUSED_MESSAGE`): a refusal that named the address a name
 * resolves to (`vm resolves to 127.0.0.1`), or told an unknown name from a forbidden one, would let a user map the
 * internal network through the import endpoints. Why it was refused goes to the service's log only (`onRefusal`).
 */

export type HostLookup = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

/** Why a URL was refused, for the service's log (never for the user): the host and the reason. */
export interface OutboundRefusal {
  hostname: string;
  port: number;
  reason: string;
}
export type RefusalLog = (refusal: OutboundRefusal) => void;

/** Logs each refusal's reason as a warning (host, port, reason): what the user's answer leaves out. */
export const logRefusalsTo =
  (logger: Pick<Logger, "warn">): RefusalLog =>
  (refusal) =>
    logger.warn(refusal, "download URL refused by the SSRF policy");

/** The one answer to a refused host: an unknown name and a forbidden address alike. */
export const HOST_REFUSED_MESSAGE =
  "URL not allowed: the service does not download from this host (an unknown host, or one that is not a public address)";

type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;

type AllowListEntry =
  | { kind: "host"; name: string; wildcard: boolean; port?: number }
  | { kind: "address"; address: IpAddress; port?: number }
  | { kind: "range"; range: [IpAddress, number] };

/** The checked destination: connect to `address`, send `hostname` as Host / TLS server name. */
export interface OutboundTarget {
  url: URL;
  hostname: string;
  port: number;
  address: string;
  family: 4 | 6;
}

/** Well-known instance-metadata and platform endpoints (AWS, ECS/EKS, GCP, Azure, Alibaba, Oracle). */
const METADATA_ADDRESSES = new Set(
  ["169.254.169.254", "169.254.170.2", "169.254.170.23", "fd00:ec2::254", "fd00:ec2::23", "168.63.129.16", "100.100.100.200", "192.0.0.192"].map(
    (text) => ipaddr.parse(text).toNormalizedString(),
  ),
);

const RANGE_DESCRIPTIONS: Record<string, string> = {
  loopback: "loopback",
  private: "private",
  uniqueLocal: "private (unique local)",
  linkLocal: "link-local",
  carrierGradeNat: "carrier-grade NAT",
  unspecified: "unspecified",
  multicast: "multicast",
  broadcast: "broadcast",
  reserved: "reserved",
};

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3");
const NAT64 = ipaddr.parseCIDR("64:ff9b::/96");

const defaultLookup: HostLookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** Unwraps IPv4-mapped and NAT64 IPv6 addresses to the IPv4 address they stand for. */
function effectiveAddress(address: IpAddress): IpAddress {
  if (address.kind() !== "ipv6") return address;
  const v6 = address as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address();
  if (v6.match(NAT64)) return ipaddr.fromByteArray(v6.toByteArray().slice(12));
  return v6;
}

/** Null for a public address, otherwise what kind of address it is (for the refusal message). */
export function nonPublicAddressKind(text: string): string | null {
  const address = effectiveAddress(ipaddr.parse(text));
  if (METADATA_ADDRESSES.has(address.toNormalizedString())) return "cloud metadata";
  const range: string = address.range();
  if (range === "unicast" && (address.kind() === "ipv4" || address.match(GLOBAL_UNICAST_V6))) return null;
  return RANGE_DESCRIPTIONS[range] ?? (range === "unicast" ? "reserved" : `special-purpose (${range})`);
}

function parsePort(text: string, entry: string): number {
  const port = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port >= 1 && port <= 65_535)) throw new Error(`Invalid download allow-list entry "${entry}": bad port "${text}"`);
  return port;
}

const HOST_NAME = /^(\*\.)?([a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/i;

function parseEntry(entry: string): AllowListEntry {
  const invalid = () =>
    new Error(
      `Invalid download allow-list entry "${entry}": expected host, host:port, *.domain, IP address, address:port, [IPv6]:port or CIDR range`,
    );
  if (entry.includes("/")) {
    if (!ipaddr.isValidCIDR(entry)) throw invalid();
    const [address, prefix] = ipaddr.parseCIDR(entry);
    return { kind: "range", range: [address, prefix] };
  }
  const bracketed = /^\[([^\]]+)\](?::(.+))?$/.exec(entry);
  if (bracketed) {
    if (!ipaddr.IPv6.isValid(bracketed[1])) throw invalid();
    return {
      kind: "address",
      address: effectiveAddress(ipaddr.IPv6.parse(bracketed[1])),
      port: bracketed[2] ? parsePort(bracketed[2], entry) : undefined,
    };
  }
  if (ipaddr.IPv6.isValid(entry)) return { kind: "address", address: effectiveAddress(ipaddr.IPv6.parse(entry)) };
  const colon = entry.lastIndexOf(":");
  const host = colon < 0 ? entry : entry.slice(0, colon);
  const port = colon < 0 ? undefined : parsePort(entry.slice(colon + 1), entry);
  if (ipaddr.IPv4.isValidFourPartDecimal(host)) return { kind: "address", address: ipaddr.IPv4.parse(host), port };
  const name = host.toLowerCase().replace(/\.$/, "");
  if (!HOST_NAME.test(name) || /^[\d.]+$/.test(name)) throw invalid();
  const wildcard = name.startsWith("*.");
  return { kind: "host", name: wildcard ? name.slice(1) : name, wildcard, port };
}

/** Parses the allow-list setting (see the file comment); throws a one-line Error naming a bad entry. */
export function parseOutboundAllowList(setting: string | undefined): AllowListEntry[] {
  return (setting ?? "")
    .split(/[\s,]+/)
    .filter((entry) => entry.length > 0)
    .map(parseEntry);
}

function urlNotAllowed(message: string): AppError {
  return new AppError("validation", "URL_NOT_ALLOWED", message, { details: [{ field: "url", message }] });
}

export class OutboundUrlPolicy {
  constructor(
    private readonly allowList: AllowListEntry[] = [],
    private readonly lookup: HostLookup = defaultLookup,
    private readonly onRefusal: RefusalLog = () => undefined,
  ) {}

  /** From the `MEDIA_DOWNLOAD_ALLOWLIST` setting's text; `onRefusal` logs why a host was refused. */
  static fromSetting(setting: string | undefined, lookup?: HostLookup, onRefusal?: RefusalLog): OutboundUrlPolicy {
    return new OutboundUrlPolicy(parseOutboundAllowList(setting), lookup, onRefusal);
  }

  /**
   * Parses and checks `url`, resolving its host; throws INVALID_URL, or URL_NOT_ALLOWED (validation): for a scheme
   * other than http(s) with its reason, for a refused host with the one generic message (the reason logged).
   */
  async check(url: string | URL): Promise<OutboundTarget> {
    const parsed = parseHttpUrl(url);
    const hostname = parsed.hostname
      .replace(/^\[(.*)\]$/, "$1")
      .toLowerCase()
      .replace(/\.$/, "");
    const port = parsed.port ? Number(parsed.port) : parsed.protocol === "https:" ? 443 : 80;

    const refuse = (reason: string): AppError => {
      this.onRefusal({ hostname, port, reason });
      return urlNotAllowed(HOST_REFUSED_MESSAGE);
    };
    let resolved: Array<{ address: string; family: number }>;
    try {
      resolved = await this.lookup(hostname);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? "";
      throw refuse(`the host ${hostname} could not be resolved (${code || "lookup failed"})`);
    }
    if (resolved.length === 0) throw refuse(`the host ${hostname} has no addresses`);

    const hostAllowed = this.allowList.some(
      (entry) =>
        entry.kind === "host" &&
        (entry.wildcard ? hostname.endsWith(entry.name) : hostname === entry.name) &&
        (entry.port === undefined || entry.port === port),
    );
    let firstRefusal: { address: string; kind: string } | undefined;
    for (const { address } of resolved) {
      const refusal = this.refusalOf(address, port, hostAllowed);
      if (!refusal) {
        const effective = effectiveAddress(ipaddr.parse(address));
        return { url: parsed, hostname, port, address: effective.toString(), family: effective.kind() === "ipv4" ? 4 : 6 };
      }
      firstRefusal ??= { address, kind: refusal };
    }
    // Every address was refused (one allowed would have returned above), and there is at least one.
    const { address, kind } = required(firstRefusal, "the first refused address");
    const subject = ipaddr.isValid(hostname) ? `${address} is` : `${hostname} resolves to ${address},`;
    throw refuse(`${subject} a ${kind} address, and it is not in the download allow-list`);
  }

  /** Null when the service may connect to `address` on `port`, else the kind of address refused. */
  private refusalOf(text: string, port: number, hostAllowed: boolean): string | null {
    const address = effectiveAddress(ipaddr.parse(text));
    const portMatches = (entryPort: number | undefined) => entryPort === undefined || entryPort === port;
    const sameAddress = (other: IpAddress) => other.kind() === address.kind() && other.toNormalizedString() === address.toNormalizedString();
    if (this.allowList.some((entry) => entry.kind === "address" && sameAddress(entry.address) && portMatches(entry.port))) return null;
    const kind = nonPublicAddressKind(text);
    if (kind === null) return null;
    if (kind === "cloud metadata") return kind;
    if (hostAllowed) return null;
    const inRange = this.allowList.some((entry) => entry.kind === "range" && entry.range[0].kind() === address.kind() && address.match(entry.range));
    return inRange ? null : kind;
  }
}

/** Only absolute http(s) URLs; anything else is the user's input error. */
export function parseHttpUrl(url: string | URL): URL {
  let parsed: URL;
  try {
    parsed = typeof url === "string" ? new URL(url) : url;
  } catch {
    throw new AppError("validation", "INVALID_URL", "The URL is not a valid absolute URL", { details: [{ field: "url", message: "invalid URL" }] });
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw urlNotAllowed(`URL not allowed: only http and https URLs can be fetched, not ${parsed.protocol.replace(/:$/, "")}`);
  }
  return parsed;
}
