import { startGoogleCalendarServer } from "../peers/google-calendar-server";
import { startOidcProvider } from "../peers/oidc-provider";

/** Who "signs in with Google" on a local stack that has no real Google credentials. */
export const DEMO_GOOGLE_USER = { sub: "demo-google-user", email: "demo.student@example.com", name: "Demo Student" };

const DAY_MS = 86_400_000;
/** `days` from today at `hour`:00 UTC. */
const at = (days: number, hour: number) => {
  const day = new Date(Date.now() + days * DAY_MS);
  day.setUTCHours(hour, 0, 0, 0);
  return day;
};
const dateIn = (days: number) => new Date(Date.now() + days * DAY_MS).toISOString().slice(0, 10);

/**
 * Google for `npm start` on a machine without Google credentials: the test kit's OpenID Connect provider (it
 * consents at once, as DEMO_GOOGLE_USER) and its Calendar v3 server, holding a small demo calendar (a weekly
 * lecture, an exam, an all-day trip). Sign-in with Google, the calendar sync and the push then work end to end,
 * against stand-ins that speak Google's protocols. Both keep their state in memory: after a restart, signing in
 * with Google again gives a fresh token (the old one answers GOOGLE_CALENDAR_AUTH_ERROR).
 */
export async function startGoogleStandIn() {
  const oidc = await startOidcProvider();
  oidc.signInAs(DEMO_GOOGLE_USER);
  const calendar = await startGoogleCalendarServer({ authenticate: (token) => oidc.subjectOf(token) });
  // Fixed ids: after a restart the same events come back as the same ones.
  calendar.addEvent(DEMO_GOOGLE_USER.sub, {
    id: "demolecture01",
    summary: "Biology lecture",
    location: "Hall B",
    start: { dateTime: at(1, 9) },
    end: { dateTime: at(1, 10) },
    recurrence: ["RRULE:FREQ=WEEKLY;COUNT=12"],
  });
  calendar.addEvent(DEMO_GOOGLE_USER.sub, {
    id: "demomidterm01",
    summary: "Biology midterm exam",
    location: "Exam hall",
    colorId: "11",
    start: { dateTime: at(14, 13) },
    end: { dateTime: at(14, 15) },
  });
  calendar.addEvent(DEMO_GOOGLE_USER.sub, { id: "demofieldtrip01", summary: "Field trip", start: { date: dateIn(21) }, end: { date: dateIn(22) } });
  return {
    /** For the gateway: Google sign-in against the stand-in provider. */
    gatewayEnv: { GOOGLE_ISSUER_URL: oidc.issuer, GOOGLE_CLIENT_ID: oidc.clientId, GOOGLE_CLIENT_SECRET: oidc.clientSecret },
    /** For the calendar service: the Calendar API of the stand-in. */
    serviceEnv: { GOOGLE_CALENDAR_API_URL: calendar.rootUrl },
    issuer: oidc.issuer,
    async stop() {
      await calendar.close();
      await oidc.close();
    },
  };
}
