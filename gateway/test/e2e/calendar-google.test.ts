import {
  Browser,
  eventually,
  GOOGLE_ERRORS,
  httpClient,
  signUpUser,
  startGoogleCalendarServer,
  startOidcProvider,
  startTestStack,
  uniqueSuffix,
  type LocalGoogleCalendar,
  type LocalOidcProvider,
  type TestStack,
} from "@study/testkit";

const DAY_MS = 86_400_000;
/** A whole hour `days` days from now, so that every event sits inside the sync window (30 days back, 180 ahead). */
const hourFromNow = (days: number, hour = 10) => {
  const day = new Date(Date.now() + days * DAY_MS);
  day.setUTCHours(hour, 0, 0, 0);
  return day;
};
const dateFromNow = (days: number) => new Date(Date.now() + days * DAY_MS).toISOString().slice(0, 10);
const compact = (date: Date) =>
  date
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");

/**
 * POST /api/calendar/sync/google and the push of local changes, end to end: the user signs in with the Google
 * stand-in (OIDC), the gateway keeps the token, the calendar service asks the gateway's IdentityService for it
 * and speaks the Calendar v3 API (official client) to a stand-in that accepts exactly the tokens the OIDC
 * stand-in issued.
 */
describe("Google Calendar sync end to end", () => {
  let oidc: LocalOidcProvider;
  let google: LocalGoogleCalendar;
  let stack: TestStack;
  let api: ReturnType<typeof httpClient>;

  beforeAll(async () => {
    oidc = await startOidcProvider();
    google = await startGoogleCalendarServer({ authenticate: (token) => oidc.subjectOf(token) });
    stack = await startTestStack({
      services: ["courses", "calendar"],
      env: { GOOGLE_CALENDAR_API_URL: google.rootUrl },
      gatewayEnv: {
        GOOGLE_ISSUER_URL: oidc.issuer,
        GOOGLE_CLIENT_ID: oidc.clientId,
        GOOGLE_CLIENT_SECRET: oidc.clientSecret,
        AUTH_RATE_LIMIT_PER_MINUTE: "1000",
      },
    });
    api = httpClient(stack.gatewayUrl);
  }, 120_000);

  afterAll(async () => {
    if (process.env.E2E_DUMP_LOGS) console.log(stack?.logs.join("\n"));
    await stack?.stopAll();
    await google?.close();
    await oidc?.close();
  });

  /** A user who signed in with Google (desktop flow): their Bearer token and Google account (the OIDC subject). */
  async function signInWithGoogle(name: string): Promise<{ token: string; sub: string }> {
    const sub = `google-${uniqueSuffix()}`;
    oidc.signInAs({ sub, email: `${name.toLowerCase()}-${sub}@example.com`, name });
    const { body } = await api("POST", "/api/auth/sign-in/social", { body: { provider: "google", flow: "desktop" } });
    const landing = await new Browser([stack.gatewayUrl, oidc.issuer]).open(body.url);
    const value = new URL(landing.url).searchParams.get("session_token");
    if (!value) throw new Error(`sign-in ended at ${landing.url}`);
    return { token: value.slice(0, value.indexOf(".")), sub };
  }

  const sync = (token: string) => api("POST", "/api/calendar/sync/google", { token });
  const listEvents = async (token: string) => {
    const response = await api("GET", "/api/calendar/events?limit=100", { token });
    expect(response.status).toBe(200);
    return response.body.data.events as Array<Record<string, unknown> & { id: string; title: string; googleEventId: string | null }>;
  };

  it("answers GOOGLE_CALENDAR_NOT_LINKED (400, LINK_GOOGLE_ACCOUNT) to a user without a Google account", async () => {
    const user = await signUpUser(api, { name: "Mail" });
    const response = await sync(user.token);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ success: false, code: "GOOGLE_CALENDAR_NOT_LINKED", action: "LINK_GOOGLE_ACCOUNT" });
    expect((await api("POST", "/api/calendar/sync/google")).status).toBe(401);
  });

  it("imports the calendar once, then only Google's changes: updated, never duplicated; cancelled ones deleted", async () => {
    const user = await signInWithGoogle("Ada");
    const lectureStart = hourFromNow(3, 9);
    const midterm = google.addEvent(user.sub, {
      summary: "Physics midterm",
      location: "Hall A",
      colorId: "11",
      start: { dateTime: hourFromNow(10) },
      end: { dateTime: hourFromNow(10, 12) },
      reminders: { useDefault: false, overrides: [{ method: "popup", minutes: 45 }] },
    });
    const conference = google.addEvent(user.sub, { summary: "Conference", start: { date: dateFromNow(20) }, end: { date: dateFromNow(22) } });
    const lecture = google.addEvent(user.sub, {
      summary: "CS101 Lecture",
      start: { dateTime: lectureStart },
      end: { dateTime: new Date(lectureStart.getTime() + 3_600_000) },
      recurrence: ["RRULE:FREQ=WEEKLY;COUNT=3"],
    });
    // Far outside the window: not imported.
    google.addEvent(user.sub, { summary: "Reunion", start: { dateTime: hourFromNow(400) }, end: { dateTime: hourFromNow(400, 12) } });

    const first = await sync(user.token);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ success: true, data: { imported: 5, updated: 0, deleted: 0, fullSync: true } });
    const imported = await listEvents(user.token);
    expect(imported.map((event) => event.title)).toEqual(["CS101 Lecture", "CS101 Lecture", "Physics midterm", "CS101 Lecture", "Conference"]);
    expect(imported.find((event) => event.title === "Physics midterm")).toMatchObject({
      googleEventId: midterm.id,
      googleCalendarId: "primary",
      eventType: "EXAM",
      location: "Hall A",
      color: "#d50000",
      reminderMinutes: 45,
      startDate: hourFromNow(10).toISOString(),
      allDayDate: null,
    });
    expect(imported.find((event) => event.title === "Conference")).toMatchObject({
      eventType: "MEETING",
      allDayDate: dateFromNow(20),
      startDate: `${dateFromNow(20)}T00:00:00.000Z`,
      endDate: `${dateFromNow(22)}T00:00:00.000Z`,
    });
    const lectures = imported.filter((event) => event.title === "CS101 Lecture");
    expect(lectures.map((event) => event.googleEventId)).toEqual(
      [0, 1, 2].map((week) => `${lecture.id}_${compact(new Date(lectureStart.getTime() + week * 7 * DAY_MS))}`),
    );
    expect(lectures.every((event) => event.eventType === "CLASS")).toBe(true);

    // The user moves the midterm and reschedules it in the app meanwhile: Google's fields win, the app's own stay.
    const midtermHere = imported.find((event) => event.title === "Physics midterm")!;
    expect((await api("PATCH", `/api/calendar/events/${midtermHere.id}`, { token: user.token, body: { priority: "HIGH" } })).status).toBe(200);
    // The app's change reaches Google first (the push), then the user edits the event in Google.
    await eventually(async () =>
      google.requests.some((request) => request.operation === "events.patch" && request.path.endsWith(`/${midterm.id}`)) ? true : undefined,
    );
    google.updateEvent(user.sub, midterm.id, { location: "Hall B" });
    google.deleteEvent(user.sub, conference.id);
    google.cancelInstance(user.sub, lectures[1].googleEventId!);

    const second = await sync(user.token);
    expect(second.body.data).toEqual({ imported: 0, updated: 1, deleted: 2, fullSync: false });
    const after = await listEvents(user.token);
    expect(after).toHaveLength(3);
    expect(after.find((event) => event.id === midtermHere.id)).toMatchObject({ location: "Hall B", priority: "HIGH", eventType: "EXAM" });
    // The last incremental sync asked with the sync token, not the window.
    const listing = google.requests.filter((request) => request.operation === "events.list" && request.account === user.sub).at(-1)!;
    expect(listing.query).toMatchObject({ singleEvents: "true" });
    expect(listing.query.syncToken).toEqual(expect.any(String));
    expect(listing.query.timeMin).toBeUndefined();

    expect((await sync(user.token)).body.data).toEqual({ imported: 0, updated: 0, deleted: 0, fullSync: false });
    // Google forgot the sync token: a full sync again, which duplicates nothing.
    google.expireSyncTokens(user.sub);
    expect((await sync(user.token)).body.data).toEqual({ imported: 0, updated: 0, deleted: 0, fullSync: true });
    expect(await listEvents(user.token)).toHaveLength(3);
  });

  it("pushes the user's own creates, changes and deletes to Google, which a later sync does not import again", async () => {
    const user = await signInWithGoogle("Grace");
    const created = await api("POST", "/api/calendar/events", {
      token: user.token,
      body: { title: "Essay due", startDate: hourFromNow(5).toISOString(), eventType: "DEADLINE", color: "#0b8043", reminderMinutes: 60 },
    });
    expect(created.status).toBe(201);
    const eventId = created.body.data.id as string;
    const googleId = eventId.replace(/-/g, "");
    const copy = await eventually(async () => google.event(user.sub, googleId));
    expect(copy).toMatchObject({
      summary: "Essay due",
      colorId: "10",
      start: { dateTime: expect.any(String) },
      end: { dateTime: expect.any(String) },
      reminders: { useDefault: false, overrides: [{ method: "popup", minutes: 60 }] },
      extendedProperties: { private: { studyEventId: eventId } },
    });
    expect(new Date(String((copy.start as { dateTime: string }).dateTime)).getTime()).toBe(hourFromNow(5).getTime());
    await eventually(async () => {
      const event = (await api("GET", `/api/calendar/events/${eventId}`, { token: user.token })).body.data;
      return event.googleEventId === googleId && event.googleCalendarId === "primary" ? event : undefined;
    });

    expect((await api("PATCH", `/api/calendar/events/${eventId}`, { token: user.token, body: { title: "Essay due (final)" } })).status).toBe(200);
    await eventually(async () => (google.event(user.sub, googleId)?.summary === "Essay due (final)" ? true : undefined));

    expect((await sync(user.token)).body.data).toEqual({ imported: 0, updated: 0, deleted: 0, fullSync: true });
    expect((await listEvents(user.token)).map((event) => event.id)).toEqual([eventId]);

    expect((await api("DELETE", `/api/calendar/events/${eventId}`, { token: user.token })).status).toBe(200);
    await eventually(async () => (google.event(user.sub, googleId)?.status === "cancelled" ? true : undefined));
    expect(google.events(user.sub)).toEqual([]);
  });

  it("answers Google's refusals with the spec's codes and actions", async () => {
    const user = await signInWithGoogle("Linus");
    const refusal = async () => {
      const response = await sync(user.token);
      return { status: response.status, code: response.body.code, action: response.body.action, success: response.body.success };
    };
    // Google keeps answering so (the client retries some answers, see google-calendar-client.ts) until cleared.
    const refusedWith = async (answer: (typeof GOOGLE_ERRORS)[keyof typeof GOOGLE_ERRORS]) => {
      google.failNext("events.list", answer, 10);
      const refused = await refusal();
      google.clearFailures();
      return refused;
    };
    expect(await refusedWith(GOOGLE_ERRORS.insufficientPermissions)).toEqual({
      status: 403,
      code: "GOOGLE_CALENDAR_PERMISSION_ERROR",
      action: "CHECK_GOOGLE_PERMISSIONS",
      success: false,
    });
    expect(await refusedWith(GOOGLE_ERRORS.tooManyRequests)).toEqual({
      status: 429,
      code: "GOOGLE_CALENDAR_RATE_LIMIT",
      action: "RETRY_LATER",
      success: false,
    });
    expect(await refusedWith(GOOGLE_ERRORS.userRateLimitExceeded)).toMatchObject({ status: 429, code: "GOOGLE_CALENDAR_RATE_LIMIT" });
    expect(await refusedWith(GOOGLE_ERRORS.backendError)).toEqual({
      status: 502,
      code: "GOOGLE_CALENDAR_SYNC_ERROR",
      action: undefined,
      success: false,
    });
    // One sync, one listing and the client's two retries of a 5xx: nobody retries the failed sync on top.
    const listings = google.requests.filter((request) => request.account === user.sub && request.operation === "events.list");
    expect(listings.slice(-3).map((request) => request.status)).toEqual([500, 500, 500]);
    expect(listings.slice(-4, -3).map((request) => request.status)).not.toEqual([500]);
    // Google no longer honours the access token the gateway holds.
    const issued = oidc.issued.filter((tokens) => tokens.sub === user.sub).at(-1)!;
    google.revokeToken(issued.accessToken);
    expect(await refusal()).toEqual({
      status: 400,
      code: "GOOGLE_CALENDAR_AUTH_ERROR",
      action: "RELINK_GOOGLE_ACCOUNT",
      success: false,
    });
  });
});
