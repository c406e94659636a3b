import { mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import net, { type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { librivoxClip, runFfmpeg, startMediaServer, type LocalMediaServer } from "@study/testkit";
import { HOST_REFUSED_MESSAGE, OutboundUrlPolicy } from "../../../src/adapters/download/outbound-url-policy";
import { OutboundPolicyProxy } from "../../../src/adapters/video/outbound-policy-proxy";
import { YtDlpVideoSource } from "../../../src/adapters/video/yt-dlp-video-source";
import { appErrorOf as failure } from "@study/testkit/refusal";

/**
 * yt-dlp resolves names and follows redirects itself; these tests show that every request it makes goes through
 * the adapter's policy proxy. Two loopback servers: `allowed` (allow-listed by its port) and `forbidden`
 * (same address, another port, not allow-listed), which must never receive a request.
 */

const SPEECH = librivoxClip("0880");

let workDirectory: string;
let allowed: LocalMediaServer;
let forbidden: LocalMediaServer;
let downloadRequests = 0;

beforeAll(async () => {
  workDirectory = await mkdtemp(join(tmpdir(), "yt-dlp-ssrf-"));
  const served = join(workDirectory, "served");
  await mkdir(served);
  await runFfmpeg([
    ...["-f", "lavfi", "-i", "color=c=navy:s=160x120:r=10", "-i", SPEECH],
    ...["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", join(served, "lecture.mp4")],
  ]);
  forbidden = await startMediaServer({ root: served });
  const toForbidden = (path: string) => (_request: unknown, response: import("node:http").ServerResponse) =>
    void response.writeHead(302, { location: forbidden.urlOf(path) }).end();
  // An HLS playlist on the allowed server whose segments are on the forbidden one.
  await runFfmpeg([
    ...["-i", join(served, "lecture.mp4"), "-c", "copy", "-f", "hls", "-hls_time", "2", "-hls_list_size", "0"],
    ...["-hls_base_url", `${forbidden.url}/`, join(served, "stream.m3u8")],
  ]);
  allowed = await startMediaServer({
    root: served,
    routes: {
      "/to-forbidden.mp4": toForbidden("/lecture.mp4"),
      "/to-metadata": (_request, response) => void response.writeHead(301, { location: "http://169.254.169.254/latest/meta-data/" }).end(),
      // A video for yt-dlp's first request (identification), a redirect for its second (the download).
      "/switch.mp4": (request, response) => {
        downloadRequests++;
        if (downloadRequests === 1) return void response.writeHead(200, { "content-type": "video/mp4" }).end(Buffer.alloc(4096));
        toForbidden("/lecture.mp4")(request, response);
      },
    },
  });
}, 60_000);

afterAll(async () => {
  await allowed?.close();
  await forbidden?.close();
  await rm(workDirectory, { recursive: true, force: true });
});

beforeEach(() => {
  forbidden.requests.length = 0;
  downloadRequests = 0;
});

const allowOnlyAllowed = () => OutboundUrlPolicy.fromSetting(`127.0.0.1:${allowed.port}`);

describe("YtDlpVideoSource behind its policy proxy", () => {
  it("imports an allow-listed video with every request checked by the policy", async () => {
    const policy = allowOnlyAllowed();
    const check = jest.spyOn(policy, "check");
    const directory = await mkdtemp(join(workDirectory, "job-"));
    const path = await new YtDlpVideoSource({ policy }).downloadAudio(allowed.urlOf("/lecture.mp4"), directory);
    expect(await readdir(directory)).toEqual(["lecture.mp3"]);
    expect(path).toBe(join(directory, "lecture.mp3"));
    // The adapter's own check, then the proxy's for yt-dlp's identification request and its download.
    const checked = check.mock.calls.map(([url]) => String(url));
    expect(checked.length).toBeGreaterThanOrEqual(3);
    expect(new Set(checked)).toEqual(new Set([allowed.urlOf("/lecture.mp4")]));
  });

  it("refuses a redirect to an address outside the allow-list while downloading, without reaching it", async () => {
    const directory = await mkdtemp(join(workDirectory, "job-"));
    const error = await failure(new YtDlpVideoSource({ policy: allowOnlyAllowed() }).downloadAudio(allowed.urlOf("/switch.mp4"), directory));
    expect(downloadRequests).toBe(2);
    expect(error).toMatchObject({ kind: "validation", code: "URL_NOT_ALLOWED", message: HOST_REFUSED_MESSAGE });
    expect(forbidden.requests).toEqual([]);
    expect(await readdir(directory)).toEqual([]);
  });

  it("refuses a redirect to an address outside the allow-list while reading the metadata", async () => {
    const source = new YtDlpVideoSource({ policy: allowOnlyAllowed() });
    const error = await failure(source.getInfo(allowed.urlOf("/to-forbidden.mp4")));
    expect(error).toMatchObject({ kind: "validation", code: "URL_NOT_ALLOWED", message: HOST_REFUSED_MESSAGE });
    expect(forbidden.requests).toEqual([]);
  });

  it("lets no no_proxy setting of the service exempt a host from the proxy", async () => {
    const saved = { no_proxy: process.env.no_proxy, NO_PROXY: process.env.NO_PROXY };
    process.env.no_proxy = process.env.NO_PROXY = "127.0.0.1,localhost";
    try {
      const error = await failure(new YtDlpVideoSource({ policy: allowOnlyAllowed() }).getInfo(allowed.urlOf("/to-forbidden.mp4")));
      expect(error).toMatchObject({ code: "URL_NOT_ALLOWED", message: HOST_REFUSED_MESSAGE });
      expect(forbidden.requests).toEqual([]);
    } finally {
      if (saved.no_proxy === undefined) delete process.env.no_proxy;
      else process.env.no_proxy = saved.no_proxy;
      if (saved.NO_PROXY === undefined) delete process.env.NO_PROXY;
      else process.env.NO_PROXY = saved.NO_PROXY;
    }
  });

  it("refuses a redirect to the cloud metadata address", async () => {
    const error = await failure(new YtDlpVideoSource({ policy: allowOnlyAllowed() }).getInfo(allowed.urlOf("/to-metadata")));
    expect(error).toMatchObject({ code: "URL_NOT_ALLOWED", message: HOST_REFUSED_MESSAGE });
  });

  it("checks HLS segments too: yt-dlp's native downloader goes through the proxy", async () => {
    const directory = await mkdtemp(join(workDirectory, "job-"));
    const error = await failure(new YtDlpVideoSource({ policy: allowOnlyAllowed() }).downloadAudio(allowed.urlOf("/stream.m3u8"), directory));
    expect(error).toMatchObject({ code: "URL_NOT_ALLOWED", message: HOST_REFUSED_MESSAGE });
    expect(forbidden.requests).toEqual([]);
    expect(await readdir(directory)).toEqual([]);
  });

  it("closes its proxy when the run ends", async () => {
    const start = jest.spyOn(OutboundPolicyProxy, "start");
    try {
      await new YtDlpVideoSource({ policy: allowOnlyAllowed() }).getInfo(allowed.urlOf("/lecture.mp4"));
      expect(start).toHaveBeenCalledTimes(1);
      const proxy = await start.mock.results[0].value;
      await expect(rawExchange(proxy.port, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")).rejects.toMatchObject({ code: "ECONNREFUSED" });
    } finally {
      start.mockRestore();
    }
  });
});

/** Sends `text` to 127.0.0.1:`port` and resolves with what came back once the other side stops or `until` matches. */
function rawExchange(port: number, text: string, until: RegExp = /\r\n\r\n/): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    let received = "";
    socket.on("data", (chunk) => {
      received += chunk.toString("latin1");
      if (until.test(received)) {
        socket.destroy();
        resolve(received);
      }
    });
    socket.once("error", reject);
    socket.once("close", () => resolve(received));
    socket.write(text);
  });
}

describe("OutboundPolicyProxy", () => {
  let target: net.Server;
  let targetPort: number;
  let targetConnections = 0;
  const openTargets = new Set<net.Socket>();

  beforeAll(async () => {
    // An echo server standing for any TCP destination.
    target = net.createServer((socket) => {
      targetConnections++;
      openTargets.add(socket);
      socket.once("close", () => openTargets.delete(socket));
      socket.on("error", () => undefined);
      socket.pipe(socket);
    });
    await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
    targetPort = (target.address() as AddressInfo).port;
  });
  afterAll(async () => {
    for (const socket of openTargets) socket.destroy();
    await new Promise((resolve) => target.close(resolve));
  });
  beforeEach(() => {
    targetConnections = 0;
  });

  async function withProxy(policy: OutboundUrlPolicy, body: (proxy: OutboundPolicyProxy) => Promise<void>): Promise<void> {
    const proxy = await OutboundPolicyProxy.start(policy);
    try {
      await body(proxy);
    } finally {
      await proxy.close();
    }
  }

  it("refuses a CONNECT tunnel to a forbidden address with 403 and records why", async () => {
    await withProxy(OutboundUrlPolicy.fromSetting(""), async (proxy) => {
      const answer = await rawExchange(proxy.port, `CONNECT 127.0.0.1:${targetPort} HTTP/1.1\r\nHost: 127.0.0.1:${targetPort}\r\n\r\n`);
      expect(answer.split("\r\n")[0]).toBe(`HTTP/1.1 403 ${HOST_REFUSED_MESSAGE}`);
      const metadata = await rawExchange(proxy.port, "CONNECT 169.254.169.254:443 HTTP/1.1\r\nHost: 169.254.169.254:443\r\n\r\n");
      expect(metadata.split("\r\n")[0]).toBe(`HTTP/1.1 403 ${HOST_REFUSED_MESSAGE}`);
      expect(targetConnections).toBe(0);
      expect(proxy.refusals.map((refusal) => [refusal.code, refusal.message])).toEqual([
        ["URL_NOT_ALLOWED", HOST_REFUSED_MESSAGE],
        ["URL_NOT_ALLOWED", HOST_REFUSED_MESSAGE],
      ]);
    });
  });

  it("tunnels CONNECT to the address the policy checked, resolving the name once", async () => {
    const lookup = jest.fn(async () => [{ address: "127.0.0.1", family: 4 }]);
    await withProxy(OutboundUrlPolicy.fromSetting(`video.test:${targetPort}`, lookup), async (proxy) => {
      const answer = await rawExchange(
        proxy.port,
        `CONNECT video.test:${targetPort} HTTP/1.1\r\nHost: video.test\r\n\r\nhello through the tunnel`,
        /tunnel$/,
      );
      expect(answer).toBe("HTTP/1.1 200 Connection Established\r\n\r\nhello through the tunnel");
      expect(lookup).toHaveBeenCalledTimes(1);
      expect(targetConnections).toBe(1);
      expect(proxy.refusals).toEqual([]);
    });
  });

  it("forwards a plain HTTP request to the checked address only, and refuses a forbidden one", async () => {
    const lookup = jest.fn(async (hostname: string) => [{ address: hostname === "video.test" ? "127.0.0.1" : "10.0.0.1", family: 4 }]);
    await withProxy(OutboundUrlPolicy.fromSetting(`video.test:${allowed.port}`, lookup), async (proxy) => {
      const before = allowed.requests.length;
      const answer = await rawExchange(
        proxy.port,
        `GET http://video.test:${allowed.port}/lecture.mp4 HTTP/1.1\r\nHost: video.test:${allowed.port}\r\nRange: bytes=0-3\r\nProxy-Connection: keep-alive\r\nConnection: close\r\n\r\n`,
        /\r\n\r\n[\s\S]{4}$/,
      );
      expect(answer.split("\r\n")[0]).toBe("HTTP/1.1 206 Partial Content");
      expect(lookup).toHaveBeenCalledTimes(1);
      const forwarded = allowed.requests.slice(before);
      expect(forwarded).toHaveLength(1);
      expect(forwarded[0]).toMatchObject({
        method: "GET",
        path: "/lecture.mp4",
        headers: { host: `video.test:${allowed.port}`, range: "bytes=0-3" },
      });
      expect(forwarded[0].headers["proxy-connection"]).toBeUndefined();

      const refused = await rawExchange(proxy.port, `GET http://internal.test:${allowed.port}/lecture.mp4 HTTP/1.1\r\nHost: internal.test\r\n\r\n`);
      expect(refused.split("\r\n")[0]).toBe(`HTTP/1.1 403 ${HOST_REFUSED_MESSAGE}`);
      expect(allowed.requests.length).toBe(before + 1);
      expect(proxy.refusals.map((refusal) => refusal.code)).toEqual(["URL_NOT_ALLOWED"]);
    });
  });

  it("does not forward requests to itself, nor requests that are not absolute http URLs", async () => {
    await withProxy(OutboundUrlPolicy.fromSetting("127.0.0.1"), async (proxy) => {
      const loop = await rawExchange(proxy.port, `GET http://127.0.0.1:${proxy.port}/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
      expect(loop.split("\r\n")[0]).toBe("HTTP/1.1 403 Requests to the proxy itself are not forwarded");
      const originForm = await rawExchange(proxy.port, "GET /lecture.mp4 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
      expect(originForm.split("\r\n")[0]).toMatch(/^HTTP\/1\.1 400 /);
    });
  });

  it("ends open tunnels when closed", async () => {
    const proxy = await OutboundPolicyProxy.start(OutboundUrlPolicy.fromSetting(`127.0.0.1:${targetPort}`));
    const socket = net.connect({ host: "127.0.0.1", port: proxy.port });
    const closed = new Promise((resolve) => socket.once("close", resolve));
    socket.on("error", () => undefined);
    await new Promise<void>((resolve) => {
      socket.on("data", (chunk) => {
        if (chunk.toString().includes("200 Connection Established")) resolve();
      });
      socket.write(`CONNECT 127.0.0.1:${targetPort} HTTP/1.1\r\nHost: x\r\n\r\n`);
    });
    expect(openTargets.size).toBe(1);
    await proxy.close();
    await closed;
    const deadline = Date.now() + 2_000;
    while (openTargets.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(openTargets.size).toBe(0);
  });
});
