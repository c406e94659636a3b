import { generateKeyPairSync } from "node:crypto";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { Client, credentials, Metadata, status, type ServiceError } from "@grpc/grpc-js";
import { billing, calendar, chat, courses, documents, gateway, media, notifications, search, study } from "@study/contracts";
import { parseInternalAuthKey, ServiceTokenSigner } from "@study/grpc";
import { REPO_ROOT, sharedTestStack, type SharedStack } from "@study/testkit";

/** A method of each internal API, as an attacker's raw client would call it: by its path, with an empty message. */
const FIRST_METHOD_PATH = {
  courses: courses.CoursesServiceService,
  notifications: notifications.NotificationsServiceService,
  media: media.MediaServiceService,
  study: study.StudyServiceService,
  search: search.SearchServiceService,
  calendar: calendar.CalendarServiceService,
  documents: documents.DocumentsServiceService,
  billing: billing.BillingServiceService,
  chat: chat.ChatServiceService,
};
const PROVIDER_TOKEN_PATH = gateway.IdentityServiceService.getProviderAccessToken.path;

/** Calls `path` on `address` with a raw grpc-js client (no test-kit credentials) and answers the status code. */
function rawCall(address: string, path: string, metadata = new Metadata()): Promise<{ code: number; details: string }> {
  const client = new Client(address, credentials.createInsecure());
  const identity = (value: Buffer) => value;
  return new Promise((resolve) => {
    client.makeUnaryRequest(path, identity, identity, Buffer.alloc(0), metadata, { deadline: Date.now() + 10_000 }, (error: ServiceError | null) => {
      client.close();
      resolve({ code: error?.code ?? status.OK, details: error?.details ?? "" });
    });
  });
}

const bearer = async (signer: ServiceTokenSigner, audience: string) => {
  const metadata = new Metadata();
  metadata.set("authorization", `Bearer ${await signer.token(audience)}`);
  return metadata;
};
const serviceOf = (path: string) => path.split("/")[1];

describe("internal gRPC calls are authenticated (a raw client, as an attacker on the network would use)", () => {
  let stack: SharedStack;
  const signerOf = (name: string) => new ServiceTokenSigner(name, parseInternalAuthKey(stack.internalAuth.privateKeys[name]));

  beforeAll(() => {
    stack = sharedTestStack();
  });

  it("refuses every service's API without a service token, and with a forged or misdirected one", async () => {
    const forger = new ServiceTokenSigner("gateway", generateKeyPairSync("ed25519").privateKey);
    const gatewaySigner = signerOf("gateway");
    for (const [name, definition] of Object.entries(FIRST_METHOD_PATH)) {
      const address = stack.serviceAddresses[name];
      const path = Object.values(definition)[0].path;
      expect({ name, ...(await rawCall(address, path)) }).toEqual({
        name,
        code: status.UNAUTHENTICATED,
        details: "an internal call needs a service token",
      });
      const forged = await rawCall(address, path, await bearer(forger, serviceOf(path)));
      expect({ name, ...forged }).toEqual({ name, code: status.UNAUTHENTICATED, details: "the service token is not valid" });
      // A token the gateway made for another service is no key to this one.
      const misdirected = await rawCall(address, path, await bearer(gatewaySigner, "study.other.v1.OtherService"));
      expect({ name, code: misdirected.code }).toEqual({ name, code: status.UNAUTHENTICATED });
      // The gateway's own token passes: the empty message then meets the method's own checks.
      const admitted = await rawCall(address, path, await bearer(gatewaySigner, serviceOf(path)));
      expect({ name, admitted: ![status.UNAUTHENTICATED, status.PERMISSION_DENIED].includes(admitted.code) }).toEqual({ name, admitted: true });
    }
  });

  it("gives a user's provider access token to the calendar service only", async () => {
    const audience = serviceOf(PROVIDER_TOKEN_PATH);
    expect(await rawCall(stack.gatewayGrpcAddress, PROVIDER_TOKEN_PATH)).toMatchObject({ code: status.UNAUTHENTICATED });
    for (const other of ["study", "billing", "gateway", "media-worker"]) {
      const refused = await rawCall(stack.gatewayGrpcAddress, PROVIDER_TOKEN_PATH, await bearer(signerOf(other), audience));
      expect({ other, ...refused }).toEqual({ other, code: status.PERMISSION_DENIED, details: `${audience} does not answer ${other}` });
    }
    // The calendar is answered: the empty request is then refused for what it lacks, not for who asks.
    const calendarCall = await rawCall(stack.gatewayGrpcAddress, PROVIDER_TOKEN_PATH, await bearer(signerOf("calendar"), audience));
    expect(calendarCall).toEqual({ code: status.INVALID_ARGUMENT, details: "user_id and provider are required" });
  });

  it("keeps the health service open to probes", async () => {
    const check = await rawCall(stack.serviceAddresses.courses, "/grpc.health.v1.Health/Check");
    expect(check.code).toBe(status.OK);
  });

  it("listens on loopback only, but for the gateway's public HTTP port", () => {
    const exposed = listeningSocketsOfApps().filter((socket) => !socket.loopback);
    // Each gateway may have one port for everyone: its HTTP API. Every other app port answers this machine only.
    const byApp = new Map<string, number>();
    for (const socket of exposed) byApp.set(`${socket.app}@${socket.pid}`, (byApp.get(`${socket.app}@${socket.pid}`) ?? 0) + 1);
    const offenders = [...byApp.entries()].filter(([app, count]) => !app.startsWith("gateway/") || count > 1);
    expect(offenders).toEqual([]);
    expect(listeningSocketsOfApps().some((socket) => socket.app.startsWith("services/") && socket.loopback)).toBe(true);
  });
});

interface ListeningSocket {
  app: string;
  pid: number;
  port: number;
  loopback: boolean;
}

/** The listening TCP sockets of every running app process of this repository (services, workers, gateways). */
function listeningSocketsOfApps(): ListeningSocket[] {
  const listening = new Map<string, { port: number; loopback: boolean }>();
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    for (const line of readFileSync(file, "utf8").split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10 || fields[3] !== "0A") continue;
      const [address, port] = fields[1].split(":");
      const loopback = address === "0100007F" || address === "00000000000000000000000001000000";
      listening.set(fields[9], { port: parseInt(port, 16), loopback });
    }
  }
  const sockets: ListeningSocket[] = [];
  for (const pid of readdirSync("/proc").filter((entry) => /^\d+$/.test(entry))) {
    let app: string | undefined;
    let links: string[];
    try {
      const command = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      app = command.map((part) => /^((?:services\/[a-z-]+)|gateway)\/dist\/(?:main|worker)\.js$/.exec(part)?.[1]).find(Boolean);
      if (!app || readlinkSync(`/proc/${pid}/cwd`) !== REPO_ROOT) continue;
      links = readdirSync(`/proc/${pid}/fd`).map((fd) => {
        try {
          return readlinkSync(join(`/proc/${pid}/fd`, fd));
        } catch {
          return "";
        }
      });
    } catch {
      continue; // the process ended meanwhile
    }
    for (const link of links) {
      const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
      const socket = inode ? listening.get(inode) : undefined;
      if (socket) sockets.push({ app: `${app}/`, pid: Number(pid), ...socket });
    }
  }
  return sockets;
}
