/** Where a navigation ended. */
export interface Navigation {
  /** The first URL outside the browser's servers (e.g. the client app or an app's custom scheme), or the last page. */
  url: string;
  /** Status of the last response received. */
  status: number;
  /** Every URL requested, in order. */
  visited: string[];
}

/**
 * A minimal browser for redirect flows in end-to-end tests: follows 3xx answers by hand (fetch with
 * `redirect: "manual"`), keeps cookies per host like a browser (Max-Age=0 and past Expires delete), and stops
 * at the first location outside its own servers, which it does not request.
 */
export class Browser {
  private readonly jar = new Map<string, Map<string, string>>();
  private readonly origins: Set<string>;

  constructor(
    servers: string[],
    readonly userAgent = "test-browser",
  ) {
    this.origins = new Set(servers.map((server) => new URL(server).origin));
  }

  cookie(url: string, name: string): string | undefined {
    return this.jar.get(new URL(url).hostname)?.get(name);
  }

  async open(start: string, maxHops = 10): Promise<Navigation> {
    const visited: string[] = [];
    let url = start;
    for (let hop = 0; hop < maxHops; hop++) {
      visited.push(url);
      const response = await fetch(url, { redirect: "manual", headers: this.headersFor(url) });
      this.store(url, response.headers.getSetCookie());
      const location = response.headers.get("location");
      await response.body?.cancel();
      if (response.status < 300 || response.status >= 400 || !location) return { url, status: response.status, visited };
      const next = new URL(location, url);
      if (!this.origins.has(next.origin)) return { url: next.toString(), status: response.status, visited };
      url = next.toString();
    }
    throw new Error(`more than ${maxHops} redirects from ${start}`);
  }

  private headersFor(url: string): Record<string, string> {
    const cookies = this.jar.get(new URL(url).hostname);
    const headers: Record<string, string> = { "user-agent": this.userAgent };
    if (cookies?.size) headers.cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join("; ");
    return headers;
  }

  private store(url: string, setCookies: string[]): void {
    const host = new URL(url).hostname;
    const cookies = this.jar.get(host) ?? new Map<string, string>();
    this.jar.set(host, cookies);
    for (const line of setCookies) {
      const [pair, ...attributes] = line.split(";").map((part) => part.trim());
      const at = pair.indexOf("=");
      const name = pair.slice(0, at);
      const expired = attributes.some((attribute) => {
        const [key, value = ""] = attribute.split("=");
        if (key.toLowerCase() === "max-age") return Number(value) <= 0;
        if (key.toLowerCase() === "expires") return new Date(value).getTime() <= Date.now();
        return false;
      });
      if (expired) cookies.delete(name);
      else cookies.set(name, pair.slice(at + 1));
    }
  }
}
