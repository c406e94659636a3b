/**
 * The words of a syllabus: what kind of calendar item a line speaks of, the human title of that item, times of
 * day, weekday lists ("Mon/Wed", "MWF", "TTh", "Tuesdays and Thursdays") and places ("Room 204", "Hall B").
 */

export type SyllabusItemType = "CLASS" | "EXAM" | "DEADLINE" | "MEETING";

/** What a piece of text announces; HOLIDAY removes class meetings, TERM_START/TERM_END bound recurring ones. */
export type LineKind = SyllabusItemType | "HOLIDAY" | "TERM_START" | "TERM_END";

const EXAM =
  /\bmid-?terms?\b(?!\s*(?:portfolios?|papers?|projects?|essays?|reports?|reviews?|evaluations?|grades?|conferences?|feedback|surveys?|break|recess)\b)|\b(exams?|examinations?|quiz(?:zes)?|finals)\b|\btests?\s*(?:#\s*)?(?:\d+|[IV]+)\b|\b(?:unit|chapter|in-class|written|practice)\s+tests?\b|^\s*tests?\b|(?<!\b(?:proposals?|papers?|projects?|reports?|essays?|drafts?|versions?|posters?|portfolios?|submissions?)\s*[(,-]?\s*)\bfinal\b(?!\s*(?:projects?|papers?|reports?|essays?|presentations?|portfolios?|drafts?|submissions?|grades?|lectures?|class(?:es)?|reviews?|versions?|day|week|reflections?|write-?ups?|labs?|due|copy|copies|revisions?)\b)/i;
/** Words that make a deadline on their own. */
const DEADLINE_STRONG = /\b(due|submit(?:ted)?|submissions?|deadlines?|turn(?:ed)?\s+in|hand\s+in)\b/i;
/** Things that are handed in: a deadline when they are due, or when a short schedule cell names just them. */
const DEADLINE_NOUN =
  /\b(?:(?:final|term|research|group|course|short|reading|lab|project|first|second|third|position|response)\s+)?((?:response|reaction|position|research|term|reading)\s+papers?|problem\s+sets?|p-?sets?|ps\s*#?\s*\d+|homeworks?|hw\s*#?\s*\d*|assignments?|projects?|papers?|essays?|lab\s+reports?|reports?|proposals?|drafts?|portfolios?|reflections?|responses?|worksheets?|write-?ups?|memos?|critiques?|posters?|presentations?)\b/i;
/** A thing announced as handed out rather than due. */
const RELEASED = /\b(assigned|released?|out|posted|available|handed\s+out|distributed)\b/i;
const MEETING = /\b(office\s+hours?|student\s+hours|consultations?|conferences?|advising|drop-in\s+hours?|meetings?)\b/i;
/** "meeting" that means the class itself. */
const CLASS_MEETING = /\b(meeting\s+times?|class\s+meetings?|meets|we\s+meet|will\s+meet)\b/i;
const CLASS =
  /\b(lectures?|labs?|laborator(?:y|ies)|sections?|seminars?|class(?:es)?|tutorials?|recitations?|discussions?|studios?|workshops?|review\s+sessions?)\b/i;
const REVIEW = /\breview(?:\s+session)?\b/i;
const HOLIDAY =
  /\b(no\s+(?:regular\s+|scheduled\s+|in-person\s+)?(?:class(?:es)?|lectures?|labs?|sections?|recitations?|meetings?|school)|holidays?|recess|break|thanksgiving|labou?r\s+day|memorial\s+day|veterans\s*'?\s*day|independence\s+day|indigenous\s+peoples\s*'?\s*day|columbus\s+day|presidents\s*'?\s*day|martin\s+luther\s+king|mlk\s+day|(?:university|campus|college)\s+closed|class(?:es)?\s+(?:cancell?ed|suspended)|reading\s+(?:days?|period))\b/i;
const TERM_START =
  /\b((?:classes|class|instruction|lectures?|semester|term|quarter)\s+(?:begins?|starts?|commences?)|first\s+(?:day|week)\s+of\s+(?:classes|class|instruction|the\s+(?:semester|term|quarter)))\b/i;
const TERM_END =
  /\b((?:classes|class|instruction|lectures?|semester|term|quarter)\s+(?:ends?|concludes?)|last\s+(?:day|week)\s+of\s+(?:classes|class|instruction|the\s+(?:semester|term|quarter))|last\s+class)\b/i;
/** Administrative dates that are no class meeting even in a schedule row. */
export const ADMINISTRATIVE =
  /\b(drop|withdraw(?:al)?|add\/drop|registration|register|enrol(?:l)?(?:ment)?|census|tuition|refund|grades?\s+(?:posted|available|due)|incomplete|last\s+updated|revised|updated)\b/i;

/** Classifies a piece of text; exam words win over "due" ("Quiz 2 due" is an exam), see services/documents/README.md. */
export function classify(text: string): LineKind | null {
  const exam = EXAM.test(text);
  const review = REVIEW.test(text);
  if (exam && !review) return "EXAM";
  if (DEADLINE_STRONG.test(text)) return "DEADLINE";
  if (TERM_START.test(text)) return "TERM_START";
  if (TERM_END.test(text)) return "TERM_END";
  if (HOLIDAY.test(text)) return "HOLIDAY";
  if (exam && review) return "CLASS";
  if (CLASS_MEETING.test(text)) return "CLASS";
  if (MEETING.test(text)) return "MEETING";
  if (isDeliverableName(text) && !CLASS.test(text)) return "DEADLINE";
  if (CLASS.test(text)) return "CLASS";
  return null;
}

/** A short table cell such as "Problem Set 1" or "PS 2" in a schedule row names something due that day. */
export function isDeliverableName(text: string): boolean {
  const match = DEADLINE_NOUN.exec(text);
  if (match === null || match.index > 2 || text.split(/\s+/).length > 5 || RELEASED.test(text)) return false;
  // A numbered thing ("Paper 2", "PS 3") or a stage of one ("Research proposal draft"), and the head of the
  // phrase: "Poster session" is a class, "Final reflections" a topic.
  const after = /^\s*(#?\s*\d+[a-z]?\b|[A-Z]\b)?\s*([A-Za-z]+)?/.exec(text.slice(match.index + match[0].length));
  const numbered = /\d/.test(match[0]) || after?.[1] !== undefined;
  const stage = after?.[2] !== undefined && /^(draft|drafts|final|revision|revised|outline|version)$/i.test(after[2]);
  return (numbered && (after?.[2] === undefined || stage || /^due$/i.test(after[2]))) || stage;
}

/** "No class — individual conferences": the day has meetings with students instead of the class (not "the
 * instructor is at a conference"). */
export function namesMeeting(text: string): boolean {
  return /\b(office\s+hours?|student\s+hours|consultations|conferences|one-on-one\s+meetings)\b/i.test(text);
}

/** What a term boundary line says besides the boundary: "Last class: review" → "review". */
export function withoutTermWords(text: string): string {
  return text.replace(TERM_START, " ").replace(TERM_END, " ");
}

export function isReleased(text: string): boolean {
  return RELEASED.test(text) && !DEADLINE_STRONG.test(text);
}

const ORDINALS: Record<string, string> = { first: "1", second: "2", third: "3", fourth: "4", "1st": "1", "2nd": "2", "3rd": "3" };

function numberAfter(text: string, word: RegExp): string | null {
  const after = new RegExp(`${word.source}\\s*(?:#|no\\.?)?\\s*(\\d{1,2}|I{1,3}|IV)\\b`, "i").exec(text);
  if (after) return after[1];
  const before = new RegExp(`\\b(first|second|third|fourth|1st|2nd|3rd)\\s+${word.source}`, "i").exec(text);
  return before ? ORDINALS[before[1].toLowerCase()] : null;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Cleans a phrase for a title: no leading bullets or separators, no dangling punctuation, bounded length. */
export function cleanPhrase(text: string, maxLength = 120): string {
  const cleaned = text
    .replace(/\s+/g, " ")
    .replace(/^[\s\-–—:;,.|•*·▪►→)]+/, "")
    .replace(/[\s\-–—:;,|•*(]+$/, "")
    .trim();
  if (cleaned.length <= maxLength) return cleaned;
  return `${cleaned.slice(0, maxLength - 1).trimEnd()}…`;
}

const DELIVERABLE_EXPANSIONS: [RegExp, string][] = [
  [/^p-?sets?\b/i, "Problem Set"],
  [/^ps\b/i, "Problem Set"],
  [/^hw\b/i, "Homework"],
];

function expandDeliverable(phrase: string): string {
  let expanded = phrase.replace(/^(?:your|the|a|an|our|all|each|every|both)\s+/i, "").replace(/\s*#\s*/, " ");
  for (const [pattern, replacement] of DELIVERABLE_EXPANSIONS) expanded = expanded.replace(pattern, replacement);
  return capitalise(expanded.replace(/^(Problem Set|Homework)(\d)/i, "$1 $2"));
}

/** "Problem Set 3 due", "Final papers due", "Field trip report due". */
function deadlineTitle(text: string): string {
  const beforeDue = /^(.*?)\s*\b(?:(?:is|are|will\s+be)\s+)?(?:due|deadline)\b/i.exec(text);
  const named = cleanPhrase(beforeDue ? beforeDue[1] : text, 100);
  if (named.length > 0 && named.split(" ").length <= 6 && !DEADLINE_STRONG.test(named)) return `${expandDeliverable(named)} due`;
  const noun = DEADLINE_NOUN.exec(text);
  if (noun) {
    const number = /\d/.test(noun[0]) ? null : /^\s*(?:#|no\.?)?\s*(\d{1,2}|[A-Z])\b/.exec(text.slice(noun.index + noun[0].length));
    return `${expandDeliverable(cleanPhrase(number ? `${noun[0]} ${number[1]}` : noun[0], 100))} due`;
  }
  return "Deadline";
}

function examTitle(text: string): string {
  if (/\bmid-?terms?\b/i.test(text)) {
    const number = numberAfter(text, /mid-?term(?:\s+exam(?:ination)?)?/);
    return number ? `Midterm Exam ${number}` : "Midterm Exam";
  }
  if (/\bfinals?\b/i.test(text) && !/\bfinal\s+quiz/i.test(text)) return "Final Exam";
  for (const [word, title] of [
    [/quiz/, "Quiz"],
    [/exam(?:ination)?/, "Exam"],
    [/test/, "Test"],
  ] as const) {
    if (new RegExp(`\\b${word.source}`, "i").test(text)) {
      const number = numberAfter(text, word);
      return number ? `${title} ${number}` : title;
    }
  }
  return "Exam";
}

const CLASS_KINDS: [RegExp, string][] = [
  [/\breview\s+sessions?\b|\breview\b/i, "Review session"],
  [/\blectures?\b/i, "Lecture"],
  [/\blab(?:s|oratory|oratories)?\b/i, "Lab"],
  [/\brecitations?\b/i, "Recitation"],
  [/\bdiscussion\s+sections?\b/i, "Discussion section"],
  [/\bsections?\b/i, "Section"],
  [/\bseminars?\b/i, "Seminar"],
  [/\btutorials?\b/i, "Tutorial"],
  [/\bstudios?\b/i, "Studio"],
  [/\bworkshops?\b/i, "Workshop"],
  [/\bdiscussions?\b/i, "Discussion"],
];

/** The kind of class meeting a text names ("Lecture", "Lab", …), or null. */
export function classKind(text: string): string | null {
  for (const [pattern, kind] of CLASS_KINDS) if (pattern.test(text)) return kind;
  return null;
}

function meetingTitle(text: string): string {
  if (/\b(office|student)\s+hours?\b/i.test(text)) return "Office hours";
  if (/\bconsultations?\b/i.test(text)) return "Consultation";
  if (/\bconferences?\b/i.test(text)) return "Conference";
  if (/\badvising\b/i.test(text)) return "Advising";
  if (/\bdrop-in\b/i.test(text)) return "Drop-in hours";
  return "Meeting";
}

/** The readable title of an item of `type` announced by `text` (dates and times already removed from it). */
export function titleFor(type: SyllabusItemType, text: string): string {
  switch (type) {
    case "EXAM":
      return examTitle(text);
    case "DEADLINE":
      return deadlineTitle(text);
    case "MEETING":
      return meetingTitle(text);
    case "CLASS":
      return classKind(text) ?? "Class";
  }
}

export interface TimeOfDay {
  hour: number;
  minute: number;
}

export interface TimeSpan {
  start: TimeOfDay;
  end: TimeOfDay | null;
  /** Where the span was found in the text, and its length. */
  index: number;
  length: number;
}

interface TimeToken {
  hour: number;
  minute: number;
  meridiem: "a" | "p" | null;
  explicit: boolean;
  index: number;
  length: number;
}

const TIME_TOKEN = /(?<![\w:/.])(?:(\d{1,2})(?::([0-5]\d))?(?:\s*([ap])\.?\s?m\b\.?)?(?![\w:/])|(noon|midday|midnight)\b)/gi;
const RANGE_JOINER = /^\s*(?:-|–|—|to|until|till)\s*$/i;

function timeTokens(text: string): TimeToken[] {
  const tokens: TimeToken[] = [];
  for (const match of text.matchAll(TIME_TOKEN)) {
    const index = match.index;
    if (match[4]) {
      const midnight = match[4].toLowerCase() === "midnight";
      tokens.push({ hour: midnight ? 23 : 12, minute: midnight ? 59 : 0, meridiem: null, explicit: true, index, length: match[0].length });
      continue;
    }
    const hour = Number(match[1]);
    const minute = match[2] ? Number(match[2]) : 0;
    const meridiem = match[3] ? (match[3].toLowerCase() as "a" | "p") : null;
    if (hour > 23 || (meridiem && (hour === 0 || hour > 12))) continue;
    tokens.push({ hour, minute, meridiem, explicit: meridiem !== null || match[2] !== undefined, index, length: match[0].length });
  }
  return tokens;
}

function to24(hour: number, meridiem: "a" | "p" | null): number {
  if (meridiem === "p") return hour === 12 ? 12 : hour + 12;
  if (meridiem === "a") return hour === 12 ? 0 : hour;
  // Without am/pm, 1-6 o'clock is afternoon: nobody schedules a class at 3 in the morning.
  return hour >= 1 && hour <= 6 ? hour + 12 : hour;
}

/**
 * Times of day and ranges in a text ("10:00-11:15", "2-4pm", "3:00–4:30 PM", "7 pm", "noon"). A lone number
 * is no time; a range of two bare numbers ("2-4") counts only when `allowBare` (a line that names weekdays).
 */
export function findTimes(text: string, allowBare: boolean): TimeSpan[] {
  const tokens = timeTokens(text);
  const spans: TimeSpan[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const start = tokens[i];
    const next = tokens[i + 1];
    if (next && RANGE_JOINER.test(text.slice(start.index + start.length, next.index))) {
      if (!start.explicit && !next.explicit && !allowBare) {
        i++;
        continue;
      }
      let startMeridiem = start.meridiem;
      if (!startMeridiem && next.meridiem) {
        // "11-1pm" starts in the morning, "2-4pm" in the afternoon.
        startMeridiem = start.hour !== 12 && start.hour % 12 > next.hour % 12 ? (next.meridiem === "p" ? "a" : "p") : next.meridiem;
      }
      const startHour = start.hour > 12 ? start.hour : to24(start.hour, startMeridiem);
      let endHour = next.hour > 12 ? next.hour : to24(next.hour, next.meridiem ?? (startHour >= 12 && next.hour < 12 ? "p" : null));
      if (!next.meridiem && next.hour <= 12 && endHour < startHour) endHour = Math.min(endHour + 12, 23);
      spans.push({
        start: { hour: startHour, minute: start.minute },
        end: { hour: endHour, minute: next.minute },
        index: start.index,
        length: next.index + next.length - start.index,
      });
      i++;
      continue;
    }
    if (!start.explicit) continue;
    spans.push({
      start: { hour: start.hour > 12 ? start.hour : to24(start.hour, start.meridiem), minute: start.minute },
      end: null,
      index: start.index,
      length: start.length,
    });
  }
  return spans;
}

/** Weekday numbers, 0 = Sunday … 6 = Saturday. */
const DAY_WORD = /\b(mon(?:day)?|tue(?:s(?:day)?)?|wed(?:s|nesday)?|thu(?:r(?:s(?:day)?)?)?|fri(?:day)?|sat(?:urday)?|sun(?:day)?)(s)?\b\.?/gi;
const DAY_PREFIX: [string, number][] = [
  ["mon", 1],
  ["tue", 2],
  ["wed", 3],
  ["thu", 4],
  ["fri", 5],
  ["sat", 6],
  ["sun", 0],
];
/** Compact codes of US timetables: MWF, TTh, TR, TuTh, M/W, T/Th. Case-sensitive on purpose. */
const DAY_CODES = /(?<![A-Za-z])((?:M|Tu|Th|T|W|R|F|Sa|Su)(?:\s*[/&,]\s*(?:M|Tu|Th|T|W|R|F|Sa|Su))+|(?:Tu|Th|Sa|Su|M|T|W|R|F){2,7})(?![A-Za-z])/g;
/** A lone code right before a time: "T 1:30–3:00pm & W 10–11am". */
const SINGLE_DAY_CODE = /(?<![A-Za-z])(M|Tu|Th|T|W|R|F)\s+(?=\d{1,2}(?::\d{2})?\s*(?:[ap]\.?m\b|[-–—]|to\b))/g;
const CODE_DAY: Record<string, number> = { M: 1, Tu: 2, T: 2, W: 3, Th: 4, R: 4, F: 5, Sa: 6, Su: 0 };
const DAY_RANGE_JOINER = /^\s*(?:-|–|—|through|thru|to)\s*$/i;

export interface WeekdayGroup {
  days: number[];
  /** Plural ("Tuesdays"), several days, or "every"/"each"/"weekly": a repeating pattern. */
  recurring: boolean;
  index: number;
  end: number;
}

function codeDays(code: string): number[] | null {
  const days: number[] = [];
  for (const token of code.replace(/[\s/&,]+/g, " ").match(/Tu|Th|Sa|Su|M|T|W|R|F| /g) ?? []) {
    if (token === " ") continue;
    const day = CODE_DAY[token];
    if (days.includes(day)) return null;
    days.push(day);
  }
  return days.length > 0 ? days : null;
}

/**
 * The weekday lists of a text, grouped when they are joined by "/", ",", "&", "and" ("Mon/Wed", "Tuesdays and
 * Thursdays", "MWF"), with day ranges expanded ("Mon–Fri").
 */
export function findWeekdays(text: string): WeekdayGroup[] {
  const mentions: { day: number[]; plural: boolean; index: number; end: number }[] = [];
  for (const match of text.matchAll(DAY_WORD)) {
    const word = match[1].toLowerCase();
    const day = DAY_PREFIX.find(([prefix]) => word.startsWith(prefix))?.[1];
    if (day === undefined) continue;
    mentions.push({ day: [day], plural: match[2] !== undefined, index: match.index, end: match.index + match[0].length });
  }
  for (const match of text.matchAll(SINGLE_DAY_CODE)) {
    mentions.push({ day: [CODE_DAY[match[1]]], plural: false, index: match.index, end: match.index + match[1].length });
  }
  for (const match of text.matchAll(DAY_CODES)) {
    const days = match[1] === "M-F" ? [1, 2, 3, 4, 5] : codeDays(match[1]);
    if (!days) continue;
    if (mentions.some((mention) => match.index < mention.end && mention.index < match.index + match[0].length)) continue;
    mentions.push({ day: days, plural: days.length > 1, index: match.index, end: match.index + match[0].length });
  }
  mentions.sort((a, b) => a.index - b.index);
  const groups: WeekdayGroup[] = [];
  for (const mention of mentions) {
    const last = groups.at(-1);
    const between = last ? text.slice(last.end, mention.index) : "";
    if (last && DAY_RANGE_JOINER.test(between) && last.days.length === 1 && mention.day.length === 1) {
      const from = last.days[0];
      const to = mention.day[0];
      const days: number[] = [];
      for (let day = from; days.length < 7; day = (day + 1) % 7) {
        days.push(day);
        if (day === to) break;
      }
      groups[groups.length - 1] = { days, recurring: true, index: last.index, end: mention.end };
    } else if (last && /^\s*(?:[/,&+]|and|or)?\s*(?:[/,&+]|and|or)?\s*$/i.test(between)) {
      last.days.push(...mention.day.filter((day) => !last.days.includes(day)));
      last.recurring = true;
      last.end = mention.end;
    } else {
      const before = text.slice(Math.max(0, mention.index - 12), mention.index);
      const every = /\b(every|each)\s*$/i.test(before);
      groups.push({ days: [...mention.day], recurring: mention.plural || every, index: mention.index, end: mention.end });
    }
  }
  if (/\b(weekly|every\s+week)\b/i.test(text)) for (const group of groups) group.recurring = true;
  return groups;
}

const ROOM = /\b(?:room|rm\.?)\s*#?\s*([A-Z]?\d{1,4}[A-Z]?)\b/i;
const BUILDING =
  /\b((?:[A-Z][\w'-]*\s+){0,2}(?:Hall|Building|Bldg\.?|Auditorium|Library|Center|Centre|Theater|Theatre|Pavilion|Annex|Gymnasium|Commons))(?:\s+(?:(?:room|rm\.?)\s*)?([A-Z]?\d{1,4}[A-Z]?|[A-Z])\b)?/;

/** "Room 204", "Hall B", "Smith Hall 120", "Zoom", "Online" when the text names a place. */
export function findLocation(text: string): string | null {
  const building = BUILDING.exec(text);
  const room = ROOM.exec(text);
  if (building) {
    const name = cleanPhrase(building[0].replace(/^(?:The|In|At)\s+/i, ""), 80);
    if (room && !building[0].includes(room[0])) return `${name}, Room ${room[1]}`;
    return name;
  }
  if (room) return `Room ${room[1]}`;
  if (/\bzoom\b/i.test(text)) return "Zoom";
  if (/\bonline\b/i.test(text)) return "Online";
  return null;
}

/** Table header cells ("Week | Date | Topic | Readings | Due"). */
export type ColumnRole = "WEEK" | "DATE" | "TOPIC" | "READING" | "DUE" | "OTHER";

export function columnRole(cell: string): ColumnRole | null {
  const text = cell.trim().toLowerCase();
  if (/^(week|wk|#|no\.?|session|class\s*#?)$/.test(text)) return "WEEK";
  if (/^(date|dates|day|days|day\/date|date\/day|when)$/.test(text)) return "DATE";
  if (/^(readings?|texts?|chapters?|preparation|prep|read before class|readings?\s*\(before class\))$/.test(text)) return "READING";
  if (/^(due|due\s+dates?|deliverables?|assignments?(\s+due)?|homework|assessments?|work\s+due|assignments?\s*\/\s*due)$/.test(text)) return "DUE";
  if (/^(topics?|subjects?|lectures?(\s+topics?)?|content|themes?|events?|activit(y|ies)|in\s+class|class\s+topics?|description)$/.test(text))
    return "TOPIC";
  if (/^(notes?|location|room|comments?)$/.test(text)) return "OTHER";
  return null;
}
