import type { Server } from "node:http";
import { calendar, media, notifications } from "@study/contracts";
import { AppError, createLogger } from "@study/platform";
import { z } from "zod";
import { route } from "../../src/http/api";
import { paginationJson, restEnum } from "../../src/routes/shared/mappers";
import { startRouteHarness } from "./route-harness";

describe("restEnum: a proto enum's REST names, from the generated enum", () => {
  const contentType = restEnum(media.UserNoteContentType, "USER_NOTE_CONTENT_TYPE", "lower");
  const eventType = restEnum(calendar.EventType, "EVENT_TYPE");

  it("lists every member but UNSPECIFIED and UNRECOGNIZED, without the prefix, in the proto's order", () => {
    expect(eventType.names).toEqual(["CLASS", "DEADLINE", "EXAM", "MEETING", "STUDY_SESSION"]);
    expect(contentType.names).toEqual(["text", "url", "file"]);
    expect(restEnum(notifications.NotificationType, "NOTIFICATION_TYPE").names).toEqual(["SYSTEM", "REMINDER", "ALERT", "MESSAGE"]);
    expect(restEnum(media.JobSortField, "JOB_SORT_FIELD", "camel").names).toEqual(["createdAt", "updatedAt", "completedAt"]);
  });

  it("maps both ways", () => {
    expect(eventType.toRest(calendar.EventType.EVENT_TYPE_STUDY_SESSION)).toBe("STUDY_SESSION");
    expect(eventType.toProto("STUDY_SESSION")).toBe(calendar.EventType.EVENT_TYPE_STUDY_SESSION);
    expect(contentType.toRest(media.UserNoteContentType.USER_NOTE_CONTENT_TYPE_URL)).toBe("url");
    expect(contentType.toProto("url")).toBe(media.UserNoteContentType.USER_NOTE_CONTENT_TYPE_URL);
  });

  it("sends a name left out as UNSPECIFIED (0), the services' 'not given'", () => {
    expect(eventType.toProto(undefined)).toBe(calendar.EventType.EVENT_TYPE_UNSPECIFIED);
  });

  it("treats a value without a REST name in an answer as a broken answer (internal error)", () => {
    for (const broken of [calendar.EventType.EVENT_TYPE_UNSPECIFIED, calendar.EventType.UNRECOGNIZED, 99 as calendar.EventType]) {
      expect(() => eventType.toRest(broken)).toThrow(expect.objectContaining({ kind: "internal", code: "INTERNAL_ERROR" }));
    }
  });

  it("refuses a prefix that names no member", () => {
    expect(() => restEnum(calendar.EventType, "EVENT_KIND")).toThrow(AppError);
  });
});

describe("paginationJson", () => {
  it("answers the page's four fields and nothing else", () => {
    const page = { limit: 20, offset: 40, total: 41, hasMore: false };
    expect(paginationJson({ ...page, extra: 1 } as typeof page, "page")).toEqual(page);
  });

  it("treats a missing page as a broken answer", () => {
    expect(() => paginationJson(undefined, "page in ListThings reply")).toThrow("Missing page in ListThings reply");
  });
});

describe("a route's handler input", () => {
  let server: Server;
  let url: string;

  beforeAll(async () => {
    const caller = z.object({ userId: z.string().optional(), name: z.string().optional(), token: z.string().optional() });
    ({ server, url } = await startRouteHarness(
      [
        route({
          method: "get",
          path: "/signed-in",
          tag: "Test",
          summary: "Echoes the caller",
          auth: true,
          responses: { 200: { description: "The caller", schema: caller } },
          handler({ userId, user, authSession, res }) {
            res.json({ userId, name: user.name, token: authSession.token });
          },
        }),
        route({
          method: "get",
          path: "/public",
          tag: "Test",
          summary: "Echoes what a public handler receives of a caller",
          auth: false,
          responses: { 200: { description: "Nothing", schema: caller } },
          handler(input) {
            input.res.json({ userId: input.userId, name: input.user?.name, token: input.authSession?.token });
          },
        }),
      ],
      { userId: "user-1", logger: createLogger("test", "silent") },
    ));
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("has the caller of an authenticated route: its user id, user and session", async () => {
    const answer = await fetch(`${url}/signed-in`, { headers: { authorization: "Bearer token" } });
    expect(await answer.json()).toEqual({ userId: "user-1", name: "Ada", token: "token" });
  });

  it("has no caller on a public route, even with credentials", async () => {
    const answer = await fetch(`${url}/public`, { headers: { authorization: "Bearer token" } });
    expect(await answer.json()).toEqual({});
  });
});
