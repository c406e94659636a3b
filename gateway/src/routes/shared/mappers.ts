import type { common } from "@study/contracts";
import { required } from "@study/platform";
import { z } from "zod";
import type { ServiceClients } from "../../clients";

/*
 * The mapping between the services' gRPC answers and the REST shapes that more than one route file uses: proto
 * enums and their REST names, timestamps, pages, course embeds. Written once here, so that routes agree.
 */

// --- proto enums ---------------------------------------------------------------------------------------

/** How a member's name is written in REST: `STUDY_SESSION`, `study_session` or `studySession`. */
type Casing = "as-is" | "lower" | "camel";

type CamelCase<Name extends string> = Name extends `${infer Head}_${infer Tail}`
  ? `${Lowercase<Head>}${Capitalize<CamelCase<Tail>>}`
  : Lowercase<Name>;

/** The REST name of a ts-proto enum member `PREFIX_NAME`: NAME (cased), none for `PREFIX_UNSPECIFIED` and others. */
type RestName<Member extends string, Prefix extends string, C extends Casing> = Member extends `${Prefix}_UNSPECIFIED`
  ? never
  : Member extends `${Prefix}_${infer Name}`
    ? C extends "lower"
      ? Lowercase<Name>
      : C extends "camel"
        ? CamelCase<Name>
        : Name
    : never;

function cased(name: string, casing: Casing | undefined): string {
  if (casing === "lower") return name.toLowerCase();
  if (casing === "camel") return name.toLowerCase().replace(/_(.)/g, (_underscore, letter: string) => letter.toUpperCase());
  return name;
}

/** Functions, not methods: they are passed around alone (`values.map(status.toRest)`). */
export interface RestEnum<Value extends number, Name extends string> {
  /** Every REST name, in the proto's order: what a zod enum of the route takes and the document lists. */
  readonly names: readonly [Name, ...Name[]];
  /**
   * The REST name of a value in a service's answer. A value without one (UNSPECIFIED, or a value newer than this
   * gateway) is a broken answer: an internal error, never a name the document does not list.
   */
  readonly toRest: (value: Value) => Name;
  /** The proto value of a REST name; no name (an optional field left out) is UNSPECIFIED, 0 on the wire. */
  readonly toProto: (name: Name | undefined) => Value;
}

/**
 * The REST names of a ts-proto enum, derived from the generated enum: each member `PREFIX_NAME` but UNSPECIFIED
 * and UNRECOGNIZED is `NAME`, or cased (`USER_NOTE_CONTENT_TYPE_TEXT` → `text`, `JOB_SORT_FIELD_CREATED_AT` → `createdAt`).
 */
export function restEnum<E extends Record<string, string | number>, const Prefix extends string, C extends Casing = "as-is">(
  protoEnum: E,
  prefix: Prefix,
  casing?: C,
): RestEnum<Extract<E[keyof E], number>, RestName<Extract<keyof E, string>, Prefix, C>> {
  type Value = Extract<E[keyof E], number>;
  type Name = RestName<Extract<keyof E, string>, Prefix, C>;
  const nameOf = new Map<number, Name>();
  const valueOf = new Map<string, Value>();
  for (const [member, value] of Object.entries(protoEnum)) {
    // A numeric TypeScript enum also maps each value back to its member's name: those entries are skipped.
    if (typeof value !== "number" || !member.startsWith(`${prefix}_`) || member === `${prefix}_UNSPECIFIED`) continue;
    const name = cased(member.slice(prefix.length + 1), casing) as Name;
    nameOf.set(value, name);
    valueOf.set(name, value as Value);
  }
  const [first, ...rest] = [...valueOf.keys()] as Name[];
  return {
    names: [required(first, `a member of the proto enum ${prefix}`), ...rest],
    toRest: (value) => required(nameOf.get(value), `REST name of ${prefix} value ${value}`),
    toProto: (name) => (name === undefined ? (0 as Value) : required(valueOf.get(name), `${prefix} value of ${name}`)),
  };
}

// --- timestamps ----------------------------------------------------------------------------------------

/** A timestamp the service always sets: missing, it is a broken answer (an internal error naming `what`). */
export const iso = (date: Date | undefined, what: string): string => required(date, what).toISOString();
/** A timestamp that may be unset: null in REST. */
export const isoOrNull = (date: Date | undefined): string | null => (date ? date.toISOString() : null);

// --- pages ---------------------------------------------------------------------------------------------

export const paginationSchema = z
  .object({ limit: z.number().int(), offset: z.number().int(), total: z.number().int(), hasMore: z.boolean() })
  .meta({ id: "Pagination" });

/** The REST page of a list answer (`paginationSchema`); the service always sends one (`what` names it when it did not). */
export function paginationJson(page: common.PageInfo | undefined, what: string): z.output<typeof paginationSchema> {
  const { limit, offset, total, hasMore } = required(page, what);
  return { limit, offset, total, hasMore };
}

// --- course embeds -------------------------------------------------------------------------------------

/** Most course ids BatchGetCourses takes at once. */
const COURSE_BATCH = 500;

const nullableString = z.string().nullable();
export const courseEmbedSchema = z
  .object({ id: z.string(), name: z.string(), color: nullableString, emoji: nullableString })
  .meta({ id: "CourseEmbed" });
export const courseDetailSchema = courseEmbedSchema.extend({ professor: nullableString, semester: nullableString }).meta({ id: "CourseDetail" });

/** The course a note or job embeds: id, name, color, emoji (null when unset); with professor and semester in detail. */
export function courseJson(course: common.CourseSummary | undefined, detail = false) {
  if (!course) return null;
  const embed = { id: course.id, name: course.name, color: course.color ?? null, emoji: course.emoji ?? null };
  return detail ? { ...embed, professor: course.professor ?? null, semester: course.semester ?? null } : embed;
}

/** The user's courses among the ids (unknown and deleted ones are left out), by id. */
export async function coursesById(
  clients: ServiceClients,
  userId: string,
  courseIds: string[],
  options?: { deadlineMs?: number },
): Promise<Map<string, common.CourseSummary>> {
  const ids = [...new Set(courseIds.filter(Boolean))];
  const batches: string[][] = [];
  for (let i = 0; i < ids.length; i += COURSE_BATCH) batches.push(ids.slice(i, i + COURSE_BATCH));
  const answers = await Promise.all(batches.map((batch) => clients.courses.batchGetCourses({ userId, courseIds: batch }, options)));
  return new Map(answers.flatMap((answer) => answer.courses.map((course) => [course.id, course] as const)));
}
