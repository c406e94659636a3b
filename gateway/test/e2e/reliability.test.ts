import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eventually, httpClient, startRabbitMq, startTestStack, type RunningRabbitMq, type TestStack } from "@study/testkit";

/**
 * Events survive a broker outage and a consumer outage: each is delivered exactly once in effect — every
 * welcome notification appears, none twice.
 */
describe("event delivery across outages", () => {
  let broker: RunningRabbitMq;
  let brokerDir: string;
  let stack: TestStack;
  let api: ReturnType<typeof httpClient>;

  beforeAll(async () => {
    brokerDir = mkdtempSync(join(tmpdir(), "study-broker-"));
    chmodSync(brokerDir, 0o755);
    // A broker of its own: this test stops it, which must not disturb other test files.
    broker = await startRabbitMq({ baseDir: brokerDir });
    stack = await startTestStack({ services: ["courses", "notifications"], rabbitmqUrl: broker.url });
    api = httpClient(stack.gatewayUrl);
  }, 120_000);

  afterAll(async () => {
    await stack?.stopAll();
    await broker?.stop();
    rmSync(brokerDir, { recursive: true, force: true });
  });

  async function signUp(name: string): Promise<string> {
    const response = await api("POST", "/api/auth/signup", {
      body: { name, email: `${name.toLowerCase()}-${Date.now()}@example.com`, password: "correct horse battery" },
    });
    expect(response.status).toBe(200);
    return response.body.session.token;
  }

  const notificationsOf = async (token: string) =>
    (await api("GET", "/api/notifications", { token })).body.data.notifications as { content: string }[];

  /**
   * Events produced after everything under test, through both outboxes that feed notifications here (the
   * gateway's: a sign-up; the courses service's: a course deletion), and handled: each relay publishes its rows
   * in order, so a late duplicate of an earlier event would have been queued before these.
   */
  async function sentinelsHandled() {
    const token = await signUp("Sentinel");
    const course = await api("POST", "/api/courses", { token, body: { name: "Sentinel Course" } });
    expect((await api("DELETE", `/api/courses/${course.body.data.id}`, { token })).status).toBe(200);
    await eventually(async () => (await notificationsOf(token)).length === 2, 30_000, 200);
  }

  /** Waits until every user has `expected` notifications, and for later events to be handled to catch late duplicates. */
  async function expectExactly(tokens: string[], expected: (token: string) => string[]) {
    for (const token of tokens) {
      await eventually(async () => (await notificationsOf(token)).length >= expected(token).length, 30_000, 200);
    }
    await sentinelsHandled();
    for (const token of tokens) {
      const contents = (await notificationsOf(token)).map((n) => n.content).sort();
      expect(contents).toEqual(expected(token).map((c) => expect.stringContaining(c)));
    }
  }

  it("keeps events in the outbox while the broker is down and delivers each exactly once after it returns", async () => {
    await broker.stop();
    const names = ["Ana", "Ben", "Cleo"];
    const tokens = [];
    for (const name of names) tokens.push(await signUp(name));
    const course = await api("POST", "/api/courses", { token: tokens[0], body: { name: "Outage Studies" } });
    expect(course.status).toBe(201);
    expect((await api("DELETE", `/api/courses/${course.body.data.id}`, { token: tokens[0] })).status).toBe(200);
    // Nothing can have been delivered yet.
    for (const token of tokens) expect(await notificationsOf(token)).toEqual([]);

    await broker.restart();
    await expectExactly(tokens, (token) =>
      token === tokens[0] ? ["“Outage Studies” was deleted", "Welcome to Study, Ana!"] : [`Welcome to Study, ${names[tokens.indexOf(token)]}!`],
    );
  }, 90_000);

  it("queues events while the notifications service is down and handles each once when it is back", async () => {
    await stack.stop("notifications");
    const tokens = [await signUp("Dora"), await signUp("Eli")];
    await stack.start("notifications");
    await expectExactly(tokens, (token) => [`Welcome to Study, ${token === tokens[0] ? "Dora" : "Eli"}!`]);
  }, 90_000);

  it("answers again within a second or so of a restarted service being ready, however long it was down", async () => {
    const token = await signUp("Fay");
    expect((await api("GET", "/api/courses", { token })).status).toBe(200);
    await stack.stop("courses");
    // Down long enough for grpc-js's default reconnect back-off (1 s, growing 1.6× to 2 min) to reach 10 s: with it, the
    // first answer came 6-9 s after the service was ready.
    const downSince = Date.now();
    let refused = 0;
    while (Date.now() - downSince < 6_000) {
      const status = (await api("GET", "/api/courses", { token })).status;
      expect(status).toBe(503);
      refused++;
    }
    expect(refused).toBeGreaterThan(0);
    await stack.start("courses");
    const ready = Date.now();
    let answered: number | undefined;
    while (answered === undefined) {
      if ((await api("GET", "/api/courses", { token })).status === 200) answered = Date.now();
    }
    // The channel retries at most a second apart (libs/grpc client options); the rest is one request's own time.
    expect(answered - ready).toBeLessThan(2_000);
    // GET /health says so too (the services this stack does not run stay UNREACHABLE). Each check has a 1 s
    // deadline: on a loaded machine one may miss it right after the restart, so poll.
    const recovered = await eventually(async () => {
      const answer = await api("GET", "/health");
      return answer.body.services?.courses === "SERVING" ? answer : undefined;
    }, 30_000);
    expect(recovered.body.services).toMatchObject({ courses: "SERVING", notifications: "SERVING" });
  }, 90_000);
});
