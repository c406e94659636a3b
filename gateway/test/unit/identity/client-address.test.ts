import { clientKey } from "../../../src/identity/adapters/http/client-address";

describe("the client a sign-in attempt counts against", () => {
  it("is an IPv4 address whole, also when IPv6 carries it", () => {
    expect(clientKey("203.0.113.7")).toBe("203.0.113.7");
    expect(clientKey("::ffff:203.0.113.7")).toBe("203.0.113.7");
  });

  it("is an IPv6 address's /64 network (one subscriber's addresses are one client)", () => {
    expect(clientKey("2001:db8:1:2::1")).toBe("2001:db8:1:2::/64");
    expect(clientKey("2001:0db8:0001:0002:ffff:0:0:9")).toBe("2001:db8:1:2::/64");
    expect(clientKey("2001:db8:1:3::1")).not.toBe(clientKey("2001:db8:1:2::1"));
  });

  it("is one shared key when express knows no address (the socket closed)", () => {
    expect(clientKey(undefined)).toBe("unknown");
  });
});
