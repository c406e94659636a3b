import { ipKeyGenerator } from "express-rate-limit";

/**
 * The client a sign-in attempt counts against: its address as express reads it (`req.ip`, which TRUST_PROXY decides),
 * an IPv4 address whole (also when IPv6 carries it as `::ffff:a.b.c.d`), an IPv6 address by its /64 network, which
 * one subscriber usually holds whole (single IPv6 addresses would give an attacker 2^64 fresh starts).
 */
export const clientKey = (ip: string | undefined): string => (ip ? ipKeyGenerator(ip, 64) : "unknown");
