import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, readFile, rm, writeFile, mkdir } from "node:fs/promises";
import { createServer as createHttpsServer } from "node:https";
import { createServer, type Server } from "node:net";
import { createSecureContext } from "node:tls";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eventually, startMediaServer, type LocalMediaServer } from "@study/testkit";
import { HOST_REFUSED_MESSAGE, OutboundUrlPolicy } from "../../../src/adapters/download/outbound-url-policy";
import { SafeHttpDownloader } from "../../../src/adapters/download/safe-http-downloader";
import { appErrorOf as failure } from "@study/testkit/refusal";

/** A self-signed certificate for media.test / 127.0.0.1 (test fixture, not trusted by anything). */
const SELF_SIGNED_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgrLN7A/7IZR9rztiG
wV+ZP1WZZYrl9E6j2WKyZmCKtF6hRANCAASM+PBEebve9LPXKnZNfi3lhp+Q1Sli
sCdUurOC0RUc5OsdhB8SnXmXntuXnA3LvGfwsDibXoxBsL0WrEe6UdHZ
-----END PRIVATE KEY-----`;
const SELF_SIGNED_CERT = `-----BEGIN CERTIFICATE-----
MIIBnzCCAUSgAwIBAgIUT62soncFoKEwKm8JoqsQON083powCgYIKoZIzj0EAwIw
FTETMBEGA1UEAwwKbWVkaWEudGVzdDAgFw0yNjExMjIwMDQ5NTFaGA8yMTI2MTAy
OTAwNDk1MVowFTETMBEGA1UEAwwKbWVkaWEudGVzdDBZMBMGByqGSM49AgEGCCqG
SM49AwEHA0IABIz48ER5u970s9cqdk1+LeWGn5DVKWKwJ1S6s4LRFRzk6x2EHxKd
eZee25ecDcu8Z/CwOJtejEGwvRasR7pR0dmjcDBuMB0GA1UdDgQWBBSLl7jWRqvT
amCKpY6uWYPXRoZLyjAfBgNVHSMEGDAWgBSLl7jWRqvTamCKpY6uWYPXRoZLyjAP
BgNVHRMBAf8EBTADAQH/MBsGA1UdEQQUMBKCCm1lZGlhLnRlc3SHBH8AAAEwCgYI
KoZIzj0EAwIDSQAwRgIhAKQ/W21UQv6xlj+aHIFTu2WRKTEDZcWoiKEngiUpb9+m
AiEAr5CTmh4tO4JnYUpRxMigibYJtYL/EUxi7P9+elhzRG4=
-----END CERTIFICATE-----`;

const KiB = 1024;
const MiB = 1024 * KiB;
const lecture = randomBytes(300 * KiB);

let workDirectory: string;
let media: LocalMediaServer;
let other: LocalMediaServer;
let destination: string;
/** Set by the endless route when the downloader hung up on it. */
let endlessClosedAfterBytes: number | undefined;

beforeAll(async () => {
  workDirectory = await mkdtemp(join(tmpdir(), "downloader-"));
  const served = join(workDirectory, "served");
  await mkdir(join(served, "files"), { recursive: true });
  await writeFile(join(served, "files", "lecture.mp3"), lecture);
  other = await startMediaServer({ root: served });
  media = await startMediaServer({
    root: served,
    routes: {
      "/start": (_request, response) => void response.writeHead(302, { location: "/files/lecture.mp3" }).end(),
      "/loop": (_request, response) => void response.writeHead(301, { location: "/loop" }).end(),
      "/to-other-port": (_request, response) => void response.writeHead(307, { location: other.urlOf("/files/lecture.mp3") }).end(),
      "/to-file-scheme": (_request, response) => void response.writeHead(302, { location: "file:///etc/passwd" }).end(),
      "/attachment": (_request, response) => {
        response.writeHead(200, {
          "content-type": "Audio/WAV; rate=16000",
          "content-disposition": `attachment; filename="fallback.wav"; filename*=UTF-8''Vorlesung%20%C3%BCber%20Zellen.wav`,
        });
        response.end(Buffer.from("RIFF....WAVE"));
      },
      "/missing": (_request, response) => void response.writeHead(404, "Not Found").end("nope"),
      "/declared-too-large": (_request, response) => {
        response.writeHead(200, { "content-type": "audio/mpeg", "content-length": 10 * MiB });
        response.write(Buffer.alloc(64 * KiB));
      },
      "/endless": (_request, response) => {
        // No Content-Length: the size is only known by counting.
        response.writeHead(200, { "content-type": "audio/mpeg" });
        let sent = 0;
        const chunk = Buffer.alloc(64 * KiB, 1);
        const pump = () => {
          while (!response.destroyed) {
            const flowing = response.write(chunk);
            sent += chunk.length;
            if (!flowing) return void response.once("drain", pump);
          }
        };
        response.once("close", () => (endlessClosedAfterBytes = sent));
        pump();
      },
      "/hang": () => {
        // Never answers.
      },
      "/stall": (_request, response) => {
        response.writeHead(200, { "content-type": "audio/ogg", "content-length": MiB });
        response.write(Buffer.alloc(10 * KiB));
      },
    },
  });
});

beforeEach(async () => {
  destination = join(await mkdtemp(join(workDirectory, "job-")), "audio.bin");
});

afterAll(async () => {
  await media?.close();
  await other?.close();
  await rm(workDirectory, { recursive: true, force: true });
});

/** Why the policy refused, as the service logs it (the refusal itself is generic). */
const refusalReasons: string[] = [];

function downloaderAllowing(setting: string, lookup?: ConstructorParameters<typeof OutboundUrlPolicy>[1]): SafeHttpDownloader {
  return new SafeHttpDownloader({ policy: OutboundUrlPolicy.fromSetting(setting, lookup, (refused) => refusalReasons.push(refused.reason)) });
}

const limits = { maxBytes: 5 * MiB, timeoutMs: 5_000 };

/** What the job folder holds after a download: nothing but the finished file, never a partial one. */
async function jobFolderEntries(): Promise<string[]> {
  return readdir(join(destination, ".."));
}

describe("SafeHttpDownloader", () => {
  it("downloads from an allow-listed loopback server", async () => {
    const downloader = downloaderAllowing(`127.0.0.1:${media.port}`);
    const file = await downloader.download(media.urlOf("/files/lecture.mp3"), destination, limits);
    expect(file).toEqual({ path: destination, size: lecture.length, contentType: "audio/mpeg", fileName: "lecture.mp3" });
    expect((await readFile(destination)).equals(lecture)).toBe(true);
    expect(await jobFolderEntries()).toEqual(["audio.bin"]);
  });

  it("follows a redirect and names the file after the final URL", async () => {
    const file = await downloaderAllowing(`127.0.0.1:${media.port}`).download(media.urlOf("/start"), destination, limits);
    expect(file.fileName).toBe("lecture.mp3");
    expect(file.size).toBe(lecture.length);
  });

  it("takes the name from Content-Disposition (filename* first) and the type without parameters", async () => {
    const file = await downloaderAllowing(`127.0.0.1:${media.port}`).download(media.urlOf("/attachment"), destination, limits);
    expect(file).toMatchObject({ fileName: "Vorlesung über Zellen.wav", contentType: "audio/wav", size: 12 });
  });

  it("connects to the address the policy checked, sending the URL's host name", async () => {
    // `lecture-host.test` exists only in this lookup: the connection can only have used the checked address.
    const lookup = async (hostname: string) => (hostname === "lecture-host.test" ? [{ address: "127.0.0.1", family: 4 }] : []);
    const before = media.requests.length;
    const file = await downloaderAllowing(`127.0.0.1:${media.port}`, lookup).download(
      `http://lecture-host.test:${media.port}/files/lecture.mp3`,
      destination,
      limits,
    );
    expect(file.size).toBe(lecture.length);
    expect(media.requests.slice(before).map((request) => request.headers.host)).toEqual([`lecture-host.test:${media.port}`]);
  });

  it("refuses a loopback server that is not allow-listed, without contacting it", async () => {
    const before = media.requests.length;
    const error = await failure(downloaderAllowing("").download(media.urlOf("/files/lecture.mp3"), destination, limits));
    expect(error).toMatchObject({ kind: "validation", code: "URL_NOT_ALLOWED", message: HOST_REFUSED_MESSAGE });
    expect(refusalReasons.at(-1)).toBe("127.0.0.1 is a loopback address, and it is not in the download allow-list");
    expect(media.requests.length).toBe(before);
  });

  it("refuses a redirect from an allow-listed server to another loopback port", async () => {
    const error = await failure(downloaderAllowing(`127.0.0.1:${media.port}`).download(media.urlOf("/to-other-port"), destination, limits));
    expect(error.code).toBe("URL_NOT_ALLOWED");
    expect(other.requests).toEqual([]);
    expect(await jobFolderEntries()).toEqual([]);
  });

  it("refuses a redirect to a non-http scheme", async () => {
    const error = await failure(downloaderAllowing(`127.0.0.1:${media.port}`).download(media.urlOf("/to-file-scheme"), destination, limits));
    expect(error).toMatchObject({ code: "URL_NOT_ALLOWED", message: expect.stringContaining("only http and https") });
  });

  it("refuses `localhost` (it resolves to 127.0.0.1) unless the name itself is allow-listed", async () => {
    const url = `http://localhost:${media.port}/files/lecture.mp3`;
    const error = await failure(downloaderAllowing(`127.0.0.1:${other.port}`).download(url, destination, limits));
    expect(error).toMatchObject({ code: "URL_NOT_ALLOWED", message: HOST_REFUSED_MESSAGE });
    expect(refusalReasons.at(-1)).toContain("localhost resolves to 127.0.0.1, a loopback address");
    const file = await downloaderAllowing(`localhost:${media.port}`).download(url, destination, limits);
    expect(file.size).toBe(lecture.length);
  });

  it("refuses a file whose Content-Length is over the limit before reading it", async () => {
    const started = Date.now();
    const error = await failure(
      downloaderAllowing(`127.0.0.1:${media.port}`).download(media.urlOf("/declared-too-large"), destination, { ...limits, maxBytes: MiB }),
    );
    expect(error).toMatchObject({ kind: "too_large", code: "FILE_TOO_LARGE", message: "The file is 10 MB, over the 1 MB limit" });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await jobFolderEntries()).toEqual([]);
  });

  it("stops a body without Content-Length at the limit and deletes the partial file", async () => {
    endlessClosedAfterBytes = undefined;
    const error = await failure(
      downloaderAllowing(`127.0.0.1:${media.port}`).download(media.urlOf("/endless"), destination, { ...limits, maxBytes: MiB }),
    );
    expect(error).toMatchObject({ kind: "too_large", code: "FILE_TOO_LARGE", message: "The file is larger than the 1 MB limit" });
    expect(await jobFolderEntries()).toEqual([]);
    // The server noticed the hang-up long before sending much more than the limit (socket buffers aside).
    await eventually(async () => endlessClosedAfterBytes !== undefined, 5_000, 10);
    expect(endlessClosedAfterBytes).toBeDefined();
    expect(endlessClosedAfterBytes!).toBeGreaterThan(MiB);
    expect(endlessClosedAfterBytes!).toBeLessThan(16 * MiB);
  });

  it("never writes more than a lying server's Content-Length", async () => {
    // A raw server claiming 100 bytes and sending 2 MiB: the HTTP parser stops at the declared length.
    const liar: Server = createServer((socket) => {
      socket.on("data", () => {
        socket.write("HTTP/1.1 200 OK\r\nContent-Type: audio/mpeg\r\nContent-Length: 100\r\nConnection: close\r\n\r\n");
        socket.end(Buffer.alloc(2 * MiB, 7));
      });
      socket.on("error", () => undefined);
    });
    await new Promise<void>((resolve) => liar.listen(0, "127.0.0.1", resolve));
    const { port } = liar.address() as { port: number };
    try {
      const file = await downloaderAllowing(`127.0.0.1:${port}`).download(`http://127.0.0.1:${port}/liar.mp3`, destination, {
        ...limits,
        maxBytes: MiB,
      });
      expect(file.size).toBe(100);
      expect((await readFile(destination)).length).toBe(100);
    } finally {
      await new Promise((resolve) => liar.close(resolve));
    }
  });

  it("times out a server that never answers", async () => {
    const started = Date.now();
    const error = await failure(
      downloaderAllowing(`127.0.0.1:${media.port}`).download(media.urlOf("/hang"), destination, { ...limits, timeoutMs: 300 }),
    );
    expect(error).toMatchObject({ kind: "timeout", code: "CONNECTION_TIMEOUT" });
    expect(error.message).toBe(`Downloading ${media.urlOf("/hang")} did not finish within 0.3 s`);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("times out a body that stalls and deletes what was written", async () => {
    const error = await failure(
      downloaderAllowing(`127.0.0.1:${media.port}`).download(media.urlOf("/stall"), destination, { ...limits, timeoutMs: 300 }),
    );
    expect(error.code).toBe("CONNECTION_TIMEOUT");
    expect(await jobFolderEntries()).toEqual([]);
  });

  it("stops when the caller's signal aborts, with the caller's reason", async () => {
    const controller = new AbortController();
    const reason = new Error("job cancelled");
    setTimeout(() => controller.abort(reason), 100);
    const promise = downloaderAllowing(`127.0.0.1:${media.port}`).download(media.urlOf("/stall"), destination, {
      ...limits,
      signal: controller.signal,
    });
    await expect(promise).rejects.toBe(reason);
    expect(await jobFolderEntries()).toEqual([]);
  });

  it("gives up after 5 redirects", async () => {
    const before = media.requests.length;
    const error = await failure(downloaderAllowing(`127.0.0.1:${media.port}`).download(media.urlOf("/loop"), destination, limits));
    expect(error).toMatchObject({
      kind: "validation",
      code: "TOO_MANY_REDIRECTS",
      message: `Gave up after 5 redirects starting at ${media.urlOf("/loop")}`,
    });
    // The first request and five followed redirects.
    expect(media.requests.slice(before).map((request) => request.path)).toEqual(Array(6).fill("/loop"));
  });

  it("reports an HTTP error status as a validation error naming it", async () => {
    const error = await failure(downloaderAllowing(`127.0.0.1:${media.port}`).download(media.urlOf("/missing"), destination, limits));
    expect(error).toMatchObject({
      kind: "validation",
      code: "DOWNLOAD_FAILED",
      message: `The server answered 404 Not Found for ${media.urlOf("/missing")}`,
    });
  });

  it("speaks TLS to the checked address with the URL's host name, and verifies the certificate", async () => {
    const serverNames: string[] = [];
    const context = createSecureContext({ key: SELF_SIGNED_KEY, cert: SELF_SIGNED_CERT });
    const tlsServer = createHttpsServer(
      {
        key: SELF_SIGNED_KEY,
        cert: SELF_SIGNED_CERT,
        SNICallback: (serverName, callback) => {
          serverNames.push(serverName);
          callback(null, context);
        },
      },
      (_request, response) => void response.end("should never be read"),
    );
    await new Promise<void>((resolve) => tlsServer.listen(0, "127.0.0.1", resolve));
    const { port } = tlsServer.address() as { port: number };
    const lookup = async (hostname: string) => (hostname === "media.test" ? [{ address: "127.0.0.1", family: 4 }] : []);
    try {
      const error = await failure(downloaderAllowing(`127.0.0.1:${port}`, lookup).download(`https://media.test:${port}/a.mp3`, destination, limits));
      // Untrusted (self-signed), so refused: certificate checking is on.
      expect(error).toMatchObject({ kind: "validation", code: "DOWNLOAD_FAILED", message: expect.stringContaining("TLS certificate problem") });
      expect(serverNames).toEqual(["media.test"]);
      expect(await jobFolderEntries()).toEqual([]);
    } finally {
      tlsServer.closeAllConnections();
      await new Promise((resolve) => tlsServer.close(resolve));
    }
  });

  it("reports a refused connection", async () => {
    const closed = await startMediaServer();
    await closed.close();
    const error = await failure(downloaderAllowing("127.0.0.1").download(closed.urlOf("/a.mp3"), destination, limits));
    expect(error).toMatchObject({ code: "DOWNLOAD_FAILED", message: `Could not connect to 127.0.0.1:${closed.port}: connection refused` });
  });
});
