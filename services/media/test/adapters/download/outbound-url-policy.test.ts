import { AppError } from "@study/platform/errors";
import {
  HOST_REFUSED_MESSAGE,
  OutboundUrlPolicy,
  nonPublicAddressKind,
  parseOutboundAllowList,
  type HostLookup,
  type OutboundRefusal,
} from "../../../src/adapters/download/outbound-url-policy";

/** A resolver with fixed answers, so names can resolve to any address the test needs. */
function fixedLookup(answers: Record<string, string[]>): HostLookup {
  return async (hostname) => {
    const addresses = answers[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
}

async function refusal(policy: OutboundUrlPolicy, url: string): Promise<AppError> {
  const error = await policy.check(url).then(
    (target) => {
      throw new Error(`expected ${url} to be refused, got ${target.address}`);
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe("address classification", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.8.9.10", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.5.4", "private"],
    ["172.31.255.255", "private"],
    ["192.168.0.10", "private"],
    ["169.254.169.254", "cloud metadata"],
    ["169.254.170.2", "cloud metadata"],
    ["168.63.129.16", "cloud metadata"],
    ["100.100.100.200", "cloud metadata"],
    ["169.254.1.1", "link-local"],
    ["100.64.0.1", "carrier-grade NAT"],
    ["100.127.255.254", "carrier-grade NAT"],
    ["0.0.0.0", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["240.0.0.1", "reserved"],
    ["192.0.2.1", "reserved"],
    ["198.18.0.1", "reserved"],
    ["::1", "loopback"],
    ["::", "unspecified"],
    ["fe80::1", "link-local"],
    ["fc00::1", "private (unique local)"],
    ["fd12:3456::1", "private (unique local)"],
    ["fd00:ec2::254", "cloud metadata"],
    ["ff02::1", "multicast"],
    ["::ffff:10.0.0.1", "private"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:169.254.169.254", "cloud metadata"],
    ["64:ff9b::a00:1", "private"],
    ["::7f00:1", "reserved"],
    ["2001:db8::1", "reserved"],
    ["2002:7f00:1::", "special-purpose (6to4)"],
    ["2001:0:4136:e378::1", "special-purpose (teredo)"],
  ])("%s is %s", (address, kind) => {
    expect(nonPublicAddressKind(address)).toBe(kind);
  });

  it.each(["93.184.216.34", "8.8.8.8", "100.63.255.255", "100.128.0.1", "172.32.0.1", "2606:4700::6810:85e5", "::ffff:8.8.8.8", "64:ff9b::808:808"])(
    "%s is public",
    (address) => {
      expect(nonPublicAddressKind(address)).toBeNull();
    },
  );
});

/** The generic refusal every refused host gets: same code, message and details, whatever the reason. */
const genericRefusal = {
  kind: "validation",
  code: "URL_NOT_ALLOWED",
  message: HOST_REFUSED_MESSAGE,
  details: [{ field: "url", message: HOST_REFUSED_MESSAGE }],
};

describe("OutboundUrlPolicy without an allow-list", () => {
  /** What the service logs of each refusal (the user never sees it). */
  const logged: OutboundRefusal[] = [];
  /** The refusal of `url`, checked to be the generic one, and the reason logged for it. */
  const loggedReason = async (url: string) => {
    const error = await refusal(policy, url);
    expect(error).toMatchObject(genericRefusal);
    return logged.at(-1)?.reason;
  };
  const policy = new OutboundUrlPolicy(
    [],
    fixedLookup({
      "media.example": ["93.184.216.34"],
      "intranet.example": ["10.0.0.8"],
      "metadata.example": ["169.254.169.254"],
      "mixed.example": ["10.0.0.8", "93.184.216.34"],
      "v6.example": ["fd00::5"],
      "127.0.0.1": ["127.0.0.1"],
    }),
    (refused) => logged.push(refused),
  );

  it("permits a public host and names the checked address to connect to", async () => {
    const target = await policy.check("https://media.example/talks/lecture.mp3?token=abc");
    expect(target).toMatchObject({ hostname: "media.example", port: 443, address: "93.184.216.34", family: 4 });
    expect(target.url.href).toBe("https://media.example/talks/lecture.mp3?token=abc");
  });

  it("refuses a public name that resolves to a private or metadata address, naming the address only in the log (#29)", async () => {
    expect(await loggedReason("http://intranet.example/a.mp3")).toBe(
      "intranet.example resolves to 10.0.0.8, a private address, and it is not in the download allow-list",
    );
    expect(logged.at(-1)).toMatchObject({ hostname: "intranet.example", port: 80 });
    expect(await loggedReason("http://metadata.example/latest/meta-data/")).toContain("169.254.169.254, a cloud metadata address");
    expect(await loggedReason("http://v6.example/")).toContain("fd00::5, a private (unique local) address");
    expect(HOST_REFUSED_MESSAGE).not.toMatch(/resolves|10\.0\.0\.8|intranet/);
  });

  it("answers a name that does not resolve exactly as one that resolves to a forbidden address (#29)", async () => {
    const unknown = await refusal(policy, "https://nowhere.example/a.mp3");
    const internal = await refusal(policy, "https://intranet.example/a.mp3");
    expect(unknown).toMatchObject(genericRefusal);
    expect({ kind: unknown.kind, code: unknown.code, message: unknown.message, details: unknown.details }).toEqual({
      kind: internal.kind,
      code: internal.code,
      message: internal.message,
      details: internal.details,
    });
    expect(await loggedReason("https://nowhere.example/a.mp3")).toBe("the host nowhere.example could not be resolved (ENOTFOUND)");
  });

  it("uses only the permitted addresses of a mixed answer", async () => {
    expect((await policy.check("http://mixed.example/a.mp3")).address).toBe("93.184.216.34");
  });

  it("refuses an address literal with the same answer, logging what it is", async () => {
    expect(await loggedReason("http://127.0.0.1:8080/a.mp3")).toBe("127.0.0.1 is a loopback address, and it is not in the download allow-list");
  });

  it("refuses `localhost` through the system resolver", async () => {
    const reasons: string[] = [];
    const error = await refusal(new OutboundUrlPolicy([], undefined, (refused) => reasons.push(refused.reason)), "http://localhost:9/a.mp3");
    expect(error).toMatchObject(genericRefusal);
    expect(reasons[0]).toMatch(/^localhost resolves to (127\.0\.0\.1|::1), a loopback address/);
  });

  it.each(["ftp://media.example/a.mp3", "file:///etc/passwd", "gopher://media.example/", "javascript:alert(1)"])(
    "refuses the scheme of %s",
    async (url) => {
      const error = await refusal(policy, url);
      expect(error.code).toBe("URL_NOT_ALLOWED");
      expect(error.message).toMatch(/only http and https URLs/);
    },
  );

  it("reports an invalid URL as a validation error", async () => {
    expect(await refusal(policy, "not a url")).toMatchObject({ kind: "validation", code: "INVALID_URL" });
  });
});

describe("OutboundUrlPolicy with an allow-list", () => {
  const lookup = fixedLookup({
    localhost: ["127.0.0.1", "::1"],
    "media.internal": ["10.20.30.40"],
    "a.corp.example": ["10.1.1.1"],
    "corp.example": ["10.1.1.2"],
    "store.lan": ["192.168.1.20"],
    "metadata.internal": ["169.254.169.254"],
    "127.0.0.1": ["127.0.0.1"],
    "::1": ["::1"],
    "169.254.169.254": ["169.254.169.254"],
  });
  const policyFor = (setting: string) => OutboundUrlPolicy.fromSetting(setting, lookup);

  it("permits a host entry on any port, or on its port only", async () => {
    expect((await policyFor("media.internal").check("http://media.internal:9000/a.mp3")).address).toBe("10.20.30.40");
    const portBound = policyFor("localhost:8080");
    expect((await portBound.check("http://localhost:8080/a.mp3")).address).toBe("127.0.0.1");
    expect((await refusal(portBound, "http://localhost:8081/a.mp3")).code).toBe("URL_NOT_ALLOWED");
    // The host entry is about the name: the same address under its literal is still refused.
    expect((await refusal(portBound, "http://127.0.0.1:8080/a.mp3")).code).toBe("URL_NOT_ALLOWED");
  });

  it("permits an address entry for the literal and for names resolving to it", async () => {
    const policy = policyFor("127.0.0.1:9000, [::1]:9001");
    expect((await policy.check("http://127.0.0.1:9000/")).address).toBe("127.0.0.1");
    expect((await policy.check("http://localhost:9000/")).address).toBe("127.0.0.1");
    expect((await policy.check("http://[::1]:9001/")).address).toBe("::1");
    expect((await policy.check("http://localhost:9001/")).address).toBe("::1");
    expect((await refusal(policy, "http://127.0.0.1:9002/")).code).toBe("URL_NOT_ALLOWED");
  });

  it("permits subdomains of a wildcard entry, not the domain itself", async () => {
    const policy = policyFor("*.corp.example");
    expect((await policy.check("https://a.corp.example/x.wav")).address).toBe("10.1.1.1");
    expect((await refusal(policy, "https://corp.example/x.wav")).code).toBe("URL_NOT_ALLOWED");
  });

  it("permits addresses inside a CIDR range", async () => {
    const policy = policyFor("192.168.0.0/16\n10.20.0.0/16");
    expect((await policy.check("http://store.lan/x.wav")).address).toBe("192.168.1.20");
    expect((await policy.check("http://media.internal/x.wav")).address).toBe("10.20.30.40");
    expect((await refusal(policy, "http://a.corp.example/x.wav")).code).toBe("URL_NOT_ALLOWED");
  });

  it("unlocks a metadata address only by its exact address entry", async () => {
    const reasons: string[] = [];
    const logging = (setting: string) => OutboundUrlPolicy.fromSetting(setting, lookup, (refused) => reasons.push(refused.reason));
    expect(await refusal(logging("metadata.internal, 169.254.0.0/16"), "http://metadata.internal/")).toMatchObject(genericRefusal);
    expect(await refusal(logging("169.254.0.0/16"), "http://169.254.169.254/")).toMatchObject(genericRefusal);
    expect(reasons).toEqual([expect.stringContaining("cloud metadata"), expect.stringContaining("cloud metadata")]);
    expect((await policyFor("169.254.169.254").check("http://metadata.internal/")).address).toBe("169.254.169.254");
  });

  it("parses every entry form and refuses malformed ones with the entry named", () => {
    expect(parseOutboundAllowList(" localhost:8080 ,127.0.0.1  ::1 [fd00::1]:443 10.0.0.0/8 *.corp.example ").map((entry) => entry.kind)).toEqual([
      "host",
      "address",
      "address",
      "address",
      "range",
      "host",
    ]);
    expect(parseOutboundAllowList(undefined)).toEqual([]);
    expect(parseOutboundAllowList("")).toEqual([]);
    for (const bad of ["http://media.internal", "10.0.0.0/33", "media.internal:99999", "[zz]:1", "-bad-", "host:", "1.2.3"]) {
      expect(() => parseOutboundAllowList(bad)).toThrow(`Invalid download allow-list entry "${bad}"`);
    }
  });
});
