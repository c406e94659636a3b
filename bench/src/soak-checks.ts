/**
 * What the soak checks in the databases and the broker once traffic has stopped and the system has drained:
 * every event published, every consumer's effect applied once per event, the search index equal to its sources,
 * one notification per trigger, no job left half-way. Each check gives a verdict and the figures behind it.
 */
import { execFileSync } from "node:child_process";
import { connect } from "amqplib";
import { Client } from "pg";
import { textAt } from "./soak-traffic";

export interface Check {
  name: string;
  ok: boolean;
  /** One line: the figures. */
  summary: string;
  /** Up to a few examples of what is wrong. */
  problems: string[];
}

/** The databases that hold an outbox or an inbox (every app's: each has the platform tables). */
export const EVENT_DATABASES = ["gateway", "courses", "notifications", "media", "study", "search", "calendar", "documents", "billing", "chat"];

type Query = <T extends Record<string, unknown>>(app: string, sql: string, values?: unknown[]) => Promise<T[]>;

/** One pg client per database, opened on first use. */
export function databases(databaseUrl: (app: string) => string) {
  const clients = new Map<string, Promise<Client>>();
  const clientOf = (app: string) => {
    let client = clients.get(app);
    if (!client) {
      const opened = new Client({ connectionString: databaseUrl(app) });
      client = opened.connect().then(() => opened);
      clients.set(app, client);
    }
    return client;
  };
  const query: Query = async <T extends Record<string, unknown>>(app: string, sql: string, values?: unknown[]) =>
    (await (await clientOf(app)).query<T>(sql, values)).rows;
  return {
    query,
    async close() {
      await Promise.allSettled([...clients.values()].map(async (client) => (await client).end()));
      clients.clear();
    },
  };
}

const examples = (items: string[], count = 5) => items.slice(0, count);

/** Rows of the outbox not yet published, per database. */
export async function pendingOutbox(query: Query): Promise<Record<string, number>> {
  const pending: Record<string, number> = {};
  for (const app of EVENT_DATABASES) {
    const [row] = await query<{ pending: string }>(app, "SELECT count(*) AS pending FROM outbox_message WHERE published_at IS NULL");
    pending[app] = Number(row.pending);
  }
  return pending;
}

/** Import jobs and documents not in a final state. */
export async function unfinishedJobs(query: Query): Promise<{ imports: string[]; documents: string[] }> {
  const imports = await query<{ id: string; status: string }>(
    "media",
    "SELECT id, status::text FROM import_job WHERE status IN ('PENDING', 'IN_PROGRESS')",
  );
  const documents = await query<{ id: string; status: string }>(
    "documents",
    "SELECT id, status::text FROM document WHERE status NOT IN ('COMPLETED', 'FAILED')",
  );
  return { imports: imports.map((row) => `${row.id} ${row.status}`), documents: documents.map((row) => `${row.id} ${row.status}`) };
}

/** The broker's bindings of the exchange: consumer (queue suffix) → the event types it is bound to. */
export function consumerBindings(broker: { ctl: string[]; env: NodeJS.ProcessEnv }, exchange: string): Map<string, Set<string>> {
  const output = execFileSync(
    broker.ctl[0],
    [...broker.ctl.slice(1), "list_bindings", "-q", "--no-table-headers", "source_name", "destination_name", "routing_key"],
    {
      env: broker.env,
      encoding: "utf8",
      timeout: 30_000,
    },
  );
  const bindings = new Map<string, Set<string>>();
  for (const line of output.split("\n")) {
    const [source, destination, key] = line.split("\t");
    if (source !== exchange || !destination?.startsWith(`${exchange}.`)) continue;
    const consumer = destination.slice(exchange.length + 1);
    if (!bindings.has(consumer)) bindings.set(consumer, new Set());
    bindings.get(consumer)?.add(key);
  }
  return bindings;
}

/** Messages waiting in each consumer's main, retry and dead-letter queues. */
export async function queueDepths(
  url: string,
  exchange: string,
  consumers: string[],
): Promise<Record<string, { main: number; retry: number; dlq: number }>> {
  const connection = await connect(url);
  try {
    const depths: Record<string, { main: number; retry: number; dlq: number }> = {};
    for (const consumer of consumers) {
      const depthOf = async (queue: string) => {
        // A channel per check: checkQueue on a missing queue closes its channel.
        const channel = await connection.createChannel();
        try {
          return (await channel.checkQueue(queue)).messageCount;
        } finally {
          await channel.close().catch((error: unknown) => console.warn(`closing a channel: ${String(error)}`));
        }
      };
      const main = `${exchange}.${consumer}`;
      depths[consumer] = { main: await depthOf(main), retry: await depthOf(`${main}.retry`), dlq: await depthOf(`${main}.dlq`) };
    }
    return depths;
  } finally {
    await connection.close();
  }
}

type OutboxEvent = {
  id: string;
  type: string;
  payload: unknown;
};

/** Every event any database's outbox holds (published rows stay 72 h). */
async function allEvents(query: Query): Promise<OutboxEvent[]> {
  const events: OutboxEvent[] = [];
  for (const app of EVENT_DATABASES) events.push(...(await query<OutboxEvent>(app, "SELECT id, type, payload FROM outbox_message")));
  return events;
}

/**
 * For each consumer and each event type it is bound to: every published event of that type has exactly one row in
 * the consumer's inbox (the inbox row commits with the effect; its key makes a second one impossible, so a
 * missing row is a lost effect), and the consumer's dead-letter queue is empty.
 */
async function deliveryChecks(
  query: Query,
  bindings: Map<string, Set<string>>,
  events: OutboxEvent[],
  dlq: Record<string, number>,
): Promise<Check[]> {
  const inbox = new Map<string, Set<string>>();
  for (const app of EVENT_DATABASES) {
    for (const row of await query<{ consumer: string; event_id: string }>(app, "SELECT consumer, event_id FROM inbox_message")) {
      if (!inbox.has(row.consumer)) inbox.set(row.consumer, new Set());
      inbox.get(row.consumer)?.add(row.event_id);
    }
  }
  const checks: Check[] = [];
  for (const [consumer, types] of [...bindings.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    const expected = events.filter((event) => types.has(event.type));
    const handled = inbox.get(consumer) ?? new Set<string>();
    const missing = expected.filter((event) => !handled.has(event.id));
    const knownIds = new Set(events.map((event) => event.id));
    const unknown = [...handled].filter((id) => !knownIds.has(id));
    const dead = dlq[consumer] ?? 0;
    checks.push({
      name: `delivery: ${consumer}`,
      ok: missing.length === 0 && dead === 0,
      summary: `${expected.length} events of ${types.size} bound types, ${expected.length - missing.length} handled, ${missing.length} missing, ${dead} dead-lettered${unknown.length ? `, ${unknown.length} inbox rows of events no outbox holds` : ""}`,
      problems: examples(missing.map((event) => `${event.type} ${event.id} not handled`)),
    });
  }
  return checks;
}

/**
 * The records each owner keeps that search must index: type → (database, query of live id, user, updated_at).
 * `announced`: every change of updated_at is announced with the record's searchable. Study material is not: study
 * moves a set's, quiz's or guide's updated_at when it drops the links to a deleted note or document, and announces
 * nothing, because no field search holds changed (title, description, content, difficulty, counts) — so an older
 * version in the index is reported there, not failed.
 */
const SEARCH_SOURCES: { type: string; app: string; sql: string; announced: boolean }[] = [
  { type: "course", app: "courses", sql: "SELECT id::text, user_id, updated_at FROM course", announced: true },
  { type: "note", app: "media", sql: "SELECT id::text, user_id, updated_at FROM note", announced: true },
  { type: "calendar_event", app: "calendar", sql: "SELECT id::text, user_id, updated_at FROM calendar_event", announced: true },
  { type: "document", app: "documents", sql: "SELECT id::text, user_id, updated_at FROM document", announced: true },
  { type: "flashcard_set", app: "study", sql: "SELECT id::text, user_id, updated_at FROM flashcard_set", announced: false },
  { type: "quiz", app: "study", sql: "SELECT id::text, user_id, updated_at FROM quiz", announced: false },
  { type: "study_guide", app: "study", sql: "SELECT id::text, user_id, updated_at FROM study_guide", announced: false },
  { type: "chat_session", app: "chat", sql: "SELECT id::text, user_id, updated_at FROM chat_session", announced: true },
];

/**
 * The search index against its sources, per record type: every live record indexed (none missing), nothing
 * indexed that its owner no longer has (none left over), the index at the record's latest version (none stale),
 * and one searchable document per live ledger row (no duplicates).
 */
async function searchChecks(query: Query): Promise<Check[]> {
  const checks: Check[] = [];
  for (const source of SEARCH_SOURCES) {
    const records = await query<{ id: string; user_id: string; updated_at: Date }>(source.app, source.sql);
    const ledger = await query<{ id: string; updated_at: Date }>(
      "search",
      "SELECT id, updated_at FROM indexed_record WHERE type = $1 AND deleted_at IS NULL",
      [source.type],
    );
    const [documents] = await query<{ rows: string; distinct_ids: string }>(
      "search",
      "SELECT count(*) AS rows, count(DISTINCT id) AS distinct_ids FROM search_document WHERE type = $1",
      [source.type],
    );
    const indexed = new Map(ledger.map((row) => [row.id, row.updated_at.getTime()]));
    const live = new Set(records.map((record) => record.id));
    const missing = records.filter((record) => !indexed.has(record.id));
    const leftOver = ledger.filter((row) => !live.has(row.id));
    const stale = records.filter((record) => indexed.has(record.id) && (indexed.get(record.id) ?? 0) < record.updated_at.getTime());
    const duplicates = Number(documents.rows) - Number(documents.distinct_ids);
    checks.push({
      name: `search index: ${source.type}`,
      ok: missing.length === 0 && leftOver.length === 0 && (stale.length === 0 || !source.announced) && duplicates === 0,
      summary:
        `${records.length} records, ${ledger.length} indexed (${documents.rows} searchable rows): ${missing.length} missing, ` +
        `${leftOver.length} left over, ${stale.length} stale${source.announced || stale.length === 0 ? "" : " (links to a deleted source dropped: nothing search holds changed)"}, ${duplicates} duplicated`,
      problems: examples([
        ...missing.map((record) => `${record.id} not indexed`),
        ...leftOver.map((row) => `${row.id} indexed but gone from ${source.app}`),
        ...stale.map((record) => `${record.id} indexed at an older version`),
      ]),
    });
  }
  return checks;
}

/** What a notification caused by one event says (a fragment unique enough to count it by) and for whom. */
function expectedNotifications(event: OutboxEvent): { userId: string; fragment: string }[] {
  const p = event.payload;
  const userId = textAt(p, "userId") ?? "";
  const title = (payload: string) => textAt(p, payload, "title") ?? "";
  switch (event.type) {
    case "identity.user.registered.v1":
      return [{ userId: textAt(p, "userRegistered", "userId") ?? "", fragment: "Add your first course to start organizing your studies." }];
    case "courses.course.deleted.v1":
      return [{ userId, fragment: `Course “${textAt(p, "courseDeleted", "name") ?? ""}” was deleted` }];
    case "media.note.import_started.v1":
      return [{ userId, fragment: `Processing started for “${title("noteImportStarted")}”` }];
    case "media.note.transcribed.v1":
      return [{ userId, fragment: `“${title("noteTranscribed")}” is ready to view` }];
    case "media.note.import_failed.v1":
      return [{ userId, fragment: `Processing of “${title("noteImportFailed")}” failed` }];
    case "documents.document.uploaded.v1":
      return [{ userId, fragment: `Processing started for the document “${title("documentUploaded")}”` }];
    case "documents.document.processed.v1":
      return textAt(p, "documentProcessed", "documentType") === "SYLLABUS"
        ? []
        : [{ userId, fragment: `The document “${title("documentProcessed")}” was processed` }];
    case "documents.document.failed.v1":
      return [{ userId, fragment: `Processing of the document “${title("documentFailed")}” failed` }];
    case "calendar.event.reminder_due.v1":
      return [{ userId, fragment: `Reminder: ${title("calendarReminderDue")} starts at` }];
    case "billing.referral.code_used.v1":
      return [{ userId, fragment: "signed up with your referral code." }];
    case "billing.referral.trial_started.v1":
      return [
        { userId: textAt(p, "referralTrialStarted", "referrerId") ?? "", fragment: " started a trial" },
        { userId: textAt(p, "referralTrialStarted", "refereeId") ?? "", fragment: "referral code gave you" },
      ];
    default:
      return [];
  }
}

/**
 * One notification per trigger: from every published event that notifies, the user and a fragment of the text it
 * warrants (titles in the soak are unique per user); the notifications of that user holding the fragment must be
 * exactly as many as such events (fewer: lost; more: duplicated).
 */
async function notificationChecks(query: Query, events: OutboxEvent[]): Promise<Check[]> {
  const notifications = await query<{ user_id: string; content: string }>("notifications", "SELECT user_id, content FROM notification");
  const byUser = new Map<string, string[]>();
  for (const row of notifications) {
    if (!byUser.has(row.user_id)) byUser.set(row.user_id, []);
    byUser.get(row.user_id)?.push(row.content);
  }
  const byTrigger = new Map<string, Map<string, { userId: string; fragment: string; expected: number }>>();
  for (const event of events) {
    for (const wanted of expectedNotifications(event)) {
      if (!byTrigger.has(event.type)) byTrigger.set(event.type, new Map());
      const key = `${wanted.userId}\u0000${wanted.fragment}`;
      const entry = byTrigger.get(event.type)?.get(key) ?? { ...wanted, expected: 0 };
      entry.expected += 1;
      byTrigger.get(event.type)?.set(key, entry);
    }
  }
  const checks: Check[] = [];
  for (const [type, wanted] of [...byTrigger.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    let expected = 0;
    let found = 0;
    let short = 0;
    let over = 0;
    const problems: string[] = [];
    for (const entry of wanted.values()) {
      const count = (byUser.get(entry.userId) ?? []).filter((content) => content.includes(entry.fragment)).length;
      expected += entry.expected;
      found += Math.min(count, entry.expected);
      if (count < entry.expected) short += 1;
      if (count > entry.expected) over += 1;
      if (count !== entry.expected) problems.push(`user ${entry.userId} "${entry.fragment}": ${count} notifications for ${entry.expected} events`);
    }
    checks.push({
      name: `notifications: ${type}`,
      ok: problems.length === 0,
      summary: `${expected} expected, ${found} found${problems.length ? `; ${short} short (lost), ${over} over (duplicated)` : ""}`,
      problems: examples(problems),
    });
  }
  return checks;
}

/** One billing account and one active referral code per registered user (made from the registration event). */
async function billingChecks(query: Query): Promise<Check[]> {
  const users = await query<{ id: string }>("gateway", 'SELECT id FROM "user"');
  const accounts = new Set((await query<{ user_id: string }>("billing", "SELECT user_id FROM billing_account")).map((row) => row.user_id));
  const codes = await query<{ user_id: string; codes: string }>(
    "billing",
    "SELECT user_id, count(*) AS codes FROM referral_code WHERE is_active GROUP BY user_id",
  );
  const codeCount = new Map(codes.map((row) => [row.user_id, Number(row.codes)]));
  const noAccount = users.filter((user) => !accounts.has(user.id));
  const badCodes = users.filter((user) => codeCount.get(user.id) !== 1);
  return [
    {
      name: "billing: account and referral code per user",
      ok: noAccount.length === 0 && badCodes.length === 0,
      summary: `${users.length} users, ${accounts.size} accounts, ${codes.length} users with an active code; ${noAccount.length} without an account, ${badCodes.length} without exactly one code`,
      problems: examples([
        ...noAccount.map((user) => `${user.id}: no billing account`),
        ...badCodes.map((user) => `${user.id}: ${codeCount.get(user.id) ?? 0} active codes`),
      ]),
    },
  ];
}

export interface CheckInput {
  query: Query;
  bindings: Map<string, Set<string>>;
  dlq: Record<string, number>;
}

export async function consistencyChecks({ query, bindings, dlq }: CheckInput): Promise<Check[]> {
  const pending = await pendingOutbox(query);
  const unpublished = Object.entries(pending).filter(([, count]) => count > 0);
  const events = await allEvents(query);
  const jobs = await unfinishedJobs(query);
  return [
    {
      name: "outbox: every event published",
      ok: unpublished.length === 0,
      summary: `${events.length} events in ${EVENT_DATABASES.length} outboxes, ${unpublished.reduce((sum, [, count]) => sum + count, 0)} unpublished`,
      problems: unpublished.map(([app, count]) => `${app}: ${count} unpublished`),
    },
    ...(await deliveryChecks(query, bindings, events, dlq)),
    ...(await notificationChecks(query, events)),
    ...(await searchChecks(query)),
    ...(await billingChecks(query)),
    {
      name: "jobs: none left PENDING / IN_PROGRESS / PROCESSING",
      ok: jobs.imports.length === 0 && jobs.documents.length === 0,
      summary: `${jobs.imports.length} import jobs, ${jobs.documents.length} documents unfinished`,
      problems: examples([...jobs.imports.map((line) => `import ${line}`), ...jobs.documents.map((line) => `document ${line}`)]),
    },
  ];
}
