import { parseSyllabus, type SyllabusItem, type SyllabusItemType } from "../../src/domain/syllabus";

/**
 * Three realistic syllabi of different layouts, each with the dated items a human reads in it written out by
 * hand (type, local date, local start time or all-day, a word of the title). The parser's items are matched
 * against them: recall = expected items found, wrong = produced items no human would list.
 */

const NEW_YORK = "America/New_York";
const CHICAGO = "America/Chicago";

interface Expected {
  type: SyllabusItemType;
  date: string;
  /** Local HH:MM, or null for an all-day item. */
  time: string | null;
  /** Case-insensitive part of the title. */
  title?: string;
}

function localTime(instant: Date, timeZone: string): string {
  return new Intl.DateTimeFormat("en-GB", { timeZone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(instant);
}

function matches(item: SyllabusItem, expected: Expected, timeZone: string): boolean {
  if (item.type !== expected.type || item.localDate !== expected.date) return false;
  if (expected.time === null ? !item.allDay : item.allDay || localTime(item.startTime, timeZone) !== expected.time) return false;
  return expected.title === undefined || item.title.toLowerCase().includes(expected.title.toLowerCase());
}

interface Score {
  expected: number;
  produced: number;
  found: number;
  recall: number;
  wrong: number;
  wrongRate: number;
  missing: Expected[];
  unexpected: string[];
}

function score(items: SyllabusItem[], expected: Expected[], timeZone: string): Score {
  const unused = new Set(items);
  const missing: Expected[] = [];
  for (const wanted of expected) {
    const hit = [...unused].find((item) => matches(item, wanted, timeZone));
    if (hit) unused.delete(hit);
    else missing.push(wanted);
  }
  const found = expected.length - missing.length;
  return {
    expected: expected.length,
    produced: items.length,
    found,
    recall: found / expected.length,
    wrong: unused.size,
    wrongRate: items.length === 0 ? 0 : unused.size / items.length,
    missing,
    unexpected: [...unused].map(
      (item) => `${item.type} ${item.localDate} ${item.allDay ? "all-day" : localTime(item.startTime, timeZone)} ${item.title}`,
    ),
  };
}

function report(name: string, result: Score): void {
  // The figures docs/PERFORMANCE.md quotes ("Syllabus") (coordinator: keep this line when the syllabi change).
  console.log(
    `syllabus "${name}": ${result.found}/${result.expected} expected items found (recall ${(result.recall * 100).toFixed(1)}%), ` +
      `${result.wrong}/${result.produced} produced items wrong (${(result.wrongRate * 100).toFixed(1)}%)` +
      (result.missing.length > 0 ? `\n  missing: ${JSON.stringify(result.missing)}` : "") +
      (result.unexpected.length > 0 ? `\n  unexpected: ${JSON.stringify(result.unexpected)}` : ""),
  );
}

const DAY_MS = 86_400_000;
const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

/** The dates between two days (inclusive) that fall on the given weekdays, minus the days a human crosses out. */
function weekly(from: string, to: string, days: string[], except: string[] = []): string[] {
  const dates: string[] = [];
  for (let time = Date.parse(`${from}T00:00:00Z`); time <= Date.parse(`${to}T00:00:00Z`); time += DAY_MS) {
    const date = new Date(time);
    const iso = date.toISOString().slice(0, 10);
    if (days.includes(WEEKDAYS[date.getUTCDay()]) && !except.includes(iso)) dates.push(iso);
  }
  return dates;
}

// (1) A table as `pdftotext -layout` renders it: week, date, topic, reading, due columns.
const GEOLOGY_TABLE = `
                    GEOL 101 – Introduction to Physical Geology
                              Fall 2026, Section 002

Instructor: Dr. Maria Alvarez                     Email: malvarez@riverton.edu
Lectures: Tuesdays and Thursdays 9:30–10:45 AM, Hartley Hall 120
Office hours: Wednesdays 1:00–3:00 PM and by appointment, Room 314

Grading: problem sets 30%, quizzes 10%, midterm 25%, final exam 35%. Late work loses 10% per day.

                              COURSE SCHEDULE
 Week  Date       Topic                                    Reading       Due
 1    Tue 9/1    Introduction; the Earth system           Ch. 1
      Thu 9/3    Minerals                                 Ch. 2
 2    Tue 9/8    Igneous rocks                            Ch. 3         Lab worksheet 1
      Thu 9/10   Volcanoes                                Ch. 4
 3    Tue 9/15   Plate tectonics                          Ch. 5         Problem Set 1
      Thu 9/17   Earthquakes                              Ch. 6
 4    Tue 9/22   Sedimentary rocks                        Ch. 7
      Thu 9/24   Quiz 1; Weathering and soils             Ch. 8
 5    Tue 9/29   Metamorphic rocks                        Ch. 9         Problem Set 2
      Thu 10/1   Geologic time                            Ch. 10
 6    Tue 10/6   Deformation and mountain building        Ch. 11
      Thu 10/8   Review for midterm
 7    Tue 10/13  Fall break – no class
      Thu 10/15  Midterm Exam (in class)
 8    Tue 10/20  Mass wasting                             Ch. 12
      Thu 10/22  Streams and floods                       Ch. 13        Problem Set 3
 9    Tue 10/27  Groundwater                              Ch. 14
      Thu 10/29  Deserts and wind                         Ch. 15
 10   Tue 11/3   Election Day – no class
      Thu 11/5   Glaciers                                 Ch. 16        Field trip report
 11   Tue 11/10  Shorelines                               Ch. 17
      Thu 11/12  Quiz 2; Climate history                  Ch. 18
 12   Tue 11/17  Energy resources                         Ch. 19        Problem Set 4
      Thu 11/19  Mineral resources                        Ch. 20
 13   Tue 11/24  Geologic hazards
      Thu 11/26  Thanksgiving – no class
 14   Tue 12/1   Planetary geology                        Ch. 21
      Thu 12/3   Student presentations                                  Poster
 15   Tue 12/8   Student presentations
      Thu 12/10  Course review                                          Problem Set 5

Final Exam: Tuesday, December 15, 8:00–10:30 AM, Hartley Hall 120
`;

const GEOLOGY_TOPICS: Record<string, string> = {
  "2026-09-01": "Introduction",
  "2026-09-03": "Minerals",
  "2026-09-08": "Igneous rocks",
  "2026-09-10": "Volcanoes",
  "2026-09-15": "Plate tectonics",
  "2026-09-17": "Earthquakes",
  "2026-09-22": "Sedimentary rocks",
  "2026-09-24": "Weathering and soils",
  "2026-09-29": "Metamorphic rocks",
  "2026-10-01": "Geologic time",
  "2026-10-06": "Deformation",
  "2026-10-08": "Review for midterm",
  "2026-10-20": "Mass wasting",
  "2026-10-22": "Streams and floods",
  "2026-10-27": "Groundwater",
  "2026-10-29": "Deserts and wind",
  "2026-11-05": "Glaciers",
  "2026-11-10": "Shorelines",
  "2026-11-12": "Climate history",
  "2026-11-17": "Energy resources",
  "2026-11-19": "Mineral resources",
  "2026-11-24": "Geologic hazards",
  "2026-12-01": "Planetary geology",
  "2026-12-03": "Student presentations",
  "2026-12-08": "Student presentations",
  "2026-12-10": "Course review",
};

const GEOLOGY_EXPECTED: Expected[] = [
  ...Object.entries(GEOLOGY_TOPICS).map(([date, topic]): Expected => ({ type: "CLASS", date, time: "09:30", title: `Lecture: ${topic}` })),
  { type: "EXAM", date: "2026-09-24", time: "09:30", title: "Quiz 1" },
  { type: "EXAM", date: "2026-10-15", time: "09:30", title: "Midterm" },
  { type: "EXAM", date: "2026-11-12", time: "09:30", title: "Quiz 2" },
  { type: "EXAM", date: "2026-12-15", time: "08:00", title: "Final Exam" },
  { type: "DEADLINE", date: "2026-09-08", time: null, title: "Lab worksheet 1" },
  { type: "DEADLINE", date: "2026-09-15", time: null, title: "Problem Set 1" },
  { type: "DEADLINE", date: "2026-09-29", time: null, title: "Problem Set 2" },
  { type: "DEADLINE", date: "2026-10-22", time: null, title: "Problem Set 3" },
  { type: "DEADLINE", date: "2026-11-05", time: null, title: "Field trip report" },
  { type: "DEADLINE", date: "2026-11-17", time: null, title: "Problem Set 4" },
  { type: "DEADLINE", date: "2026-12-03", time: null, title: "Poster" },
  { type: "DEADLINE", date: "2026-12-10", time: null, title: "Problem Set 5" },
  // Office hours every Wednesday of the term (classes run Sep 1 – Dec 10).
  ...weekly("2026-09-01", "2026-12-10", ["Wed"]).map((date): Expected => ({ type: "MEETING", date, time: "13:00", title: "Office hours" })),
];

// (2) Prose, as a word processor's text comes out: wrapped paragraphs, dates inside sentences.
const HISTORY_PROSE = `HIST 210: The Atlantic World, 1450–1850
Spring Semester 2027
Professor Daniel Okafor · okafor@lakeside.edu · Baker Hall 305

Course Description
This seminar examines the movement of people, goods and ideas around the Atlantic basin
from the first Portuguese voyages to the abolition of the slave trade. Readings combine
primary sources with recent scholarship.

Meetings and Office Hours
We meet Mondays and Wednesdays from 2:00 to 3:15 pm in Baker Hall 210, beginning January 13
and ending April 28. Classes will not meet on Monday, January 18 (Martin Luther King Jr. Day).
Professor Okafor holds office hours on Thursdays, 10:00–11:30 am, in Baker Hall 305, and by
appointment.

Assignments and Exams
Your first response paper is due Friday, February 5 by 5:00 pm. The second response paper is
due on March 5. The midterm exam will be held on Thursday, March 11 at 7 pm in Hall B. There
is no class during spring break (March 15–19). A one-page research proposal must be submitted
by April 2. The last day to withdraw with a W is March 26. The final exam is scheduled for
Monday, May 10, 9:00 am – noon. Final papers are due May 14 by 11:59 pm.

Attendance and Participation
Students who miss more than three classes without an excuse lose participation credit.
`;

const HISTORY_EXPECTED: Expected[] = [
  ...weekly("2027-01-13", "2027-04-28", ["Mon", "Wed"], ["2027-01-18", "2027-03-15", "2027-03-17"]).map((date): Expected => ({
    type: "CLASS",
    date,
    time: "14:00",
  })),
  ...weekly("2027-01-13", "2027-04-28", ["Thu"], ["2027-03-18"]).map((date): Expected => ({
    type: "MEETING",
    date,
    time: "10:00",
    title: "Office hours",
  })),
  { type: "DEADLINE", date: "2027-02-05", time: "17:00", title: "response paper" },
  { type: "DEADLINE", date: "2027-03-05", time: null, title: "response paper" },
  { type: "EXAM", date: "2027-03-11", time: "19:00", title: "Midterm Exam" },
  { type: "DEADLINE", date: "2027-04-02", time: null, title: "proposal" },
  { type: "EXAM", date: "2027-05-10", time: "09:00", title: "Final Exam" },
  { type: "DEADLINE", date: "2027-05-14", time: "23:59", title: "Final papers" },
];

// (3) A weekly schedule: recurring lectures, labs, recitations and office hours, dated weeks, holidays.
const CHEMISTRY_WEEKLY = `CHEM 1210 – General Chemistry I
Fall Semester 2026 · 4 credits

MEETING TIMES
Lectures Mon/Wed 10:00-11:15, Sep 2 – Dec 9, Science Center 101
Labs: Thursdays 2-4pm (Sep 10 - Dec 10), Baker Lab Building B12
Recitation: Fri 9:00–9:50 AM, Room 118
Office hours: Tuesdays 3:00–4:30 PM, Room 210; TA office hours: MW 4–5 PM, Room 212
Problem sets are due on Fridays at 5:00 pm, starting Sep 11.

IMPORTANT DATES
Sep 7          Labor Day – no classes
Oct 12–13      Fall break, no class
Nov 25–27      Thanksgiving recess
Dec 17         Final exam, 8:00–11:00 AM (room TBA)

WEEKLY SCHEDULE
Week 1 – Sep 2: Atoms, molecules and ions
Week 2 – Sep 9: Stoichiometry
Week 3 – Sep 14: Reactions in aqueous solution; Quiz 1 in recitation Fri Sep 18
Week 4 – Sep 21: Thermochemistry
Week 5 – Sep 28: Quantum theory and electron configuration
Week 6 – Oct 5: Periodic trends; Quiz 2 in recitation Fri Oct 9
Week 7 – Oct 14: Midterm Exam 1 (in class)
Week 8 – Oct 19: Chemical bonding I
Week 9 – Oct 26: Chemical bonding II; lab report 1 due Oct 29
Week 10 – Nov 2: Molecular geometry
Week 11 – Nov 9: Midterm Exam 2 (in class)
Week 12 – Nov 16: Gases
Week 13 – Nov 23: Liquids and solids
Week 14 – Nov 30: Solutions; Quiz 3 in recitation Fri Dec 4
Week 15 – Dec 7: Review
`;

const CHEMISTRY_HOLIDAYS = ["2026-09-07", "2026-10-12", "2026-10-13", "2026-11-25", "2026-11-26", "2026-11-27"];
const CHEMISTRY_TOPICS: Record<string, string> = {
  "2026-09-02": "Atoms, molecules and ions",
  "2026-09-09": "Stoichiometry",
  "2026-09-14": "Reactions in aqueous solution",
  "2026-09-21": "Thermochemistry",
  "2026-09-28": "Quantum theory",
  "2026-10-05": "Periodic trends",
  "2026-10-19": "Chemical bonding I",
  "2026-10-26": "Chemical bonding II",
  "2026-11-02": "Molecular geometry",
  "2026-11-16": "Gases",
  "2026-11-23": "Liquids and solids",
  "2026-11-30": "Solutions",
  "2026-12-07": "Review",
};
const CHEMISTRY_EXAM_DAYS = ["2026-10-14", "2026-11-09"];

const CHEMISTRY_EXPECTED: Expected[] = [
  ...weekly("2026-09-02", "2026-12-09", ["Mon", "Wed"], [...CHEMISTRY_HOLIDAYS, ...CHEMISTRY_EXAM_DAYS]).map((date): Expected => ({
    type: "CLASS",
    date,
    time: "10:00",
    title: CHEMISTRY_TOPICS[date] ?? "Lecture",
  })),
  ...weekly("2026-09-10", "2026-12-10", ["Thu"], CHEMISTRY_HOLIDAYS).map((date): Expected => ({ type: "CLASS", date, time: "14:00", title: "Lab" })),
  ...weekly("2026-09-02", "2026-12-09", ["Fri"], CHEMISTRY_HOLIDAYS).map((date): Expected => ({
    type: "CLASS",
    date,
    time: "09:00",
    title: "Recitation",
  })),
  ...weekly("2026-09-02", "2026-12-09", ["Tue"], CHEMISTRY_HOLIDAYS).map((date): Expected => ({
    type: "MEETING",
    date,
    time: "15:00",
    title: "Office hours",
  })),
  ...weekly("2026-09-02", "2026-12-09", ["Mon", "Wed"], CHEMISTRY_HOLIDAYS).map((date): Expected => ({
    type: "MEETING",
    date,
    time: "16:00",
    title: "Office hours",
  })),
  ...weekly("2026-09-11", "2026-12-09", ["Fri"], CHEMISTRY_HOLIDAYS).map((date): Expected => ({
    type: "DEADLINE",
    date,
    time: "17:00",
    title: "Problem set",
  })),
  { type: "EXAM", date: "2026-09-18", time: "09:00", title: "Quiz 1" },
  { type: "EXAM", date: "2026-10-09", time: "09:00", title: "Quiz 2" },
  { type: "EXAM", date: "2026-10-14", time: "10:00", title: "Midterm Exam 1" },
  { type: "DEADLINE", date: "2026-10-29", time: null, title: "Lab report 1" },
  { type: "EXAM", date: "2026-11-09", time: "10:00", title: "Midterm Exam 2" },
  { type: "EXAM", date: "2026-12-04", time: "09:00", title: "Quiz 3" },
  { type: "EXAM", date: "2026-12-17", time: "08:00", title: "Final Exam" },
];

// (4) Held out: written after the parser was tuned on (1)-(3): a table with " | " cells as a word processor's table comes
// out, bullets of key dates, "student hours". Its first score was recall 95.5%, wrong 7.4% ("(final)" read as the
// final exam, "Poster session" as something due, "Last class: review" losing its topic); those rules were fixed.
const PSYCHOLOGY_PIPES = `PSYC 2300 — Research Methods in Psychology
Spring 2027 · Dr. Lena Hoffmann · hoffmann@northfield.edu

Class: Tuesdays & Thursdays, 12:30–1:45 p.m., Marsh Hall 214
Lab sections meet Wednesdays 3:00–4:50 p.m. in the Psychology Lab (Marsh Hall B05), starting the second week.
Student hours: Mondays 11 a.m.–12:30 p.m. or by appointment (Marsh Hall 318)

Key dates
• Tue, Jan 19 – First day of class
• Mon, Feb 15 – Presidents' Day (no classes)
• Mar 8–12 – Spring break
• Thu, Apr 29 – Last day of class
• Final exam: Wed, May 5, 1:00–3:00 p.m.

| Date | Topic | Due |
| Jan 19 | Why research methods? | |
| Jan 21 | Ethics and the IRB | CITI training certificate |
| Jan 26 | Measurement and reliability | |
| Jan 28 | Validity | Article summary 1 |
| Feb 2 | Surveys and sampling | |
| Feb 4 | Observational designs | |
| Feb 9 | Correlational research | Article summary 2 |
| Feb 11 | Quiz 1 | |
| Feb 16 | Experiments I | |
| Feb 18 | Experiments II | Research proposal draft |
| Feb 23 | Factorial designs | |
| Feb 25 | Exam 1 | |
| Mar 2 | Single-case designs | |
| Mar 4 | Quasi-experiments | Research proposal (final) |
| Mar 16 | Descriptive statistics | |
| Mar 18 | Inferential statistics | |
| Mar 23 | Power and effect sizes | Data analysis worksheet |
| Mar 25 | Quiz 2 | |
| Mar 30 | Writing in APA style | |
| Apr 1 | Open science and replication | Methods section |
| Apr 6 | Qualitative methods | |
| Apr 8 | Exam 2 | |
| Apr 13 | Poster design workshop | |
| Apr 15 | Lab project work session | Results section |
| Apr 20 | Poster session (Marsh Hall atrium) | Poster PDF |
| Apr 22 | Peer review | |
| Apr 27 | Course wrap-up | |
| Apr 29 | Last class: review | Final paper |
`;

const PSYCHOLOGY_TOPICS: Record<string, string> = {
  "2027-01-19": "Why research methods",
  "2027-01-21": "Ethics and the IRB",
  "2027-01-26": "Measurement and reliability",
  "2027-01-28": "Validity",
  "2027-02-02": "Surveys and sampling",
  "2027-02-04": "Observational designs",
  "2027-02-09": "Correlational research",
  // Quiz days: the class meets and the quiz is part of it.
  "2027-02-11": "",
  "2027-02-16": "Experiments I",
  "2027-02-18": "Experiments II",
  "2027-02-23": "Factorial designs",
  "2027-03-02": "Single-case designs",
  "2027-03-04": "Quasi-experiments",
  "2027-03-16": "Descriptive statistics",
  "2027-03-18": "Inferential statistics",
  "2027-03-23": "Power and effect sizes",
  "2027-03-25": "",
  "2027-03-30": "Writing in APA style",
  "2027-04-01": "Open science and replication",
  "2027-04-06": "Qualitative methods",
  "2027-04-13": "Poster design workshop",
  "2027-04-15": "Lab project work session",
  "2027-04-20": "Poster session",
  "2027-04-22": "Peer review",
  "2027-04-27": "Course wrap-up",
  "2027-04-29": "review",
};

const PSYCHOLOGY_EXPECTED: Expected[] = [
  ...Object.entries(PSYCHOLOGY_TOPICS).map(([date, topic]): Expected => ({ type: "CLASS", date, time: "12:30", title: topic })),
  // "starting the second week": the first lab is on Wednesday, January 27.
  ...weekly("2027-01-27", "2027-04-29", ["Wed"], ["2027-03-10"]).map((date): Expected => ({ type: "CLASS", date, time: "15:00", title: "Lab" })),
  ...weekly("2027-01-19", "2027-04-29", ["Mon"], ["2027-02-15", "2027-03-08"]).map((date): Expected => ({
    type: "MEETING",
    date,
    time: "11:00",
    title: "Office hours",
  })),
  { type: "EXAM", date: "2027-02-11", time: "12:30", title: "Quiz 1" },
  { type: "EXAM", date: "2027-02-25", time: "12:30", title: "Exam 1" },
  { type: "EXAM", date: "2027-03-25", time: "12:30", title: "Quiz 2" },
  { type: "EXAM", date: "2027-04-08", time: "12:30", title: "Exam 2" },
  { type: "EXAM", date: "2027-05-05", time: "13:00", title: "Final Exam" },
  { type: "DEADLINE", date: "2027-01-21", time: null, title: "CITI" },
  { type: "DEADLINE", date: "2027-01-28", time: null, title: "Article summary 1" },
  { type: "DEADLINE", date: "2027-02-09", time: null, title: "Article summary 2" },
  { type: "DEADLINE", date: "2027-02-18", time: null, title: "proposal draft" },
  { type: "DEADLINE", date: "2027-03-04", time: null, title: "proposal" },
  { type: "DEADLINE", date: "2027-03-23", time: null, title: "worksheet" },
  { type: "DEADLINE", date: "2027-04-01", time: null, title: "Methods section" },
  { type: "DEADLINE", date: "2027-04-15", time: null, title: "Results section" },
  { type: "DEADLINE", date: "2027-04-20", time: null, title: "Poster" },
  { type: "DEADLINE", date: "2027-04-29", time: null, title: "Final paper" },
];

// (5) Held out: written last, after every rule above, and scored as it came: recall 19.7%, wrong 56.7% (a weekday
// before a date-first row, "final due" read as the final exam, "Midterm portfolio conferences" as an exam, lone
// day codes "T 1:30–3:00pm", the class term taken up to a deadline after the last class). Those general rules
// were then fixed; the two misses left ("due at the start of class" is not read as 11:00; no office hours on a
// day without regular class) stay as they are.
const COMPOSITION_BULLETS = `ENGL 1010: College Composition I (Section 14)
Fall 2026 | TR 11:00am–12:15pm | Ellis Hall 108
Instructor: Prof. Sam Rivera — Office: Ellis 320 — Office Hours: T 1:30–3:00pm & W 10–11am

Course Calendar
(Readings are due on the day listed.)

Unit 1: Literacy Narrative
- Tues 8/25: Course introduction; diagnostic writing
- Thurs 8/27: "Mother Tongue" (Tan); freewriting
- Tues 9/1: Narrative structure
- Thurs 9/3: Workshop: draft openings
- Tues 9/8: Peer review of full drafts (bring 3 copies)
- Thurs 9/10: Literacy Narrative final draft due at the start of class
Unit 2: Rhetorical Analysis
- Tues 9/15: Rhetorical situation
- Thurs 9/17: Ethos, pathos, logos
- Tues 9/22: Analyzing visual arguments
- Thurs 9/24: No class — individual conferences (sign up on Canvas)
- Tues 9/29: Rhetorical Analysis draft due; peer review
- Thurs 10/1: Grammar quiz; revision strategies
- Tues 10/6: Rhetorical Analysis final due
Unit 3: Research Argument
- Thurs 10/8: Finding sources; library session in Ellis Library
- Tues 10/13: Evaluating sources
- Thurs 10/15: Annotated bibliography due
- Tues 10/20: Midterm portfolio conferences (no regular class)
- Thurs 10/22: Synthesis
- Tues 10/27: Counterargument and rebuttal
- Thurs 10/29: Research Argument proposal due; workshop
- Tues 11/3: Election Day — class meets online (Zoom)
- Thurs 11/5: Integrating quotations
- Tues 11/10: Research Argument draft 1 due; peer review
- Thurs 11/12: Revision workshop
- Tues 11/17: Style and concision
- Thurs 11/19: One-on-one conferences in my office (no class)
- Tues 11/24: Thanksgiving week — no class
- Thurs 11/26: Thanksgiving — no class
- Tues 12/1: Research Argument due
- Thurs 12/3: Final reflections; course evaluations

Final Portfolio due Tuesday, December 8 by 11:59pm on Canvas.
`;

const COMPOSITION_TOPICS: Record<string, string> = {
  "2026-08-25": "Course introduction",
  "2026-08-27": "Mother Tongue",
  "2026-09-01": "Narrative structure",
  "2026-09-03": "Workshop",
  "2026-09-08": "Peer review",
  "2026-09-10": "",
  "2026-09-15": "Rhetorical situation",
  "2026-09-17": "Ethos",
  "2026-09-22": "visual arguments",
  "2026-09-29": "peer review",
  "2026-10-01": "revision strategies",
  "2026-10-06": "",
  "2026-10-08": "Finding sources",
  "2026-10-13": "Evaluating sources",
  "2026-10-15": "",
  "2026-10-22": "Synthesis",
  "2026-10-27": "Counterargument",
  "2026-10-29": "workshop",
  "2026-11-03": "online",
  "2026-11-05": "Integrating quotations",
  "2026-11-10": "peer review",
  "2026-11-12": "Revision workshop",
  "2026-11-17": "Style and concision",
  "2026-12-01": "",
  "2026-12-03": "Final reflections",
};

const COMPOSITION_EXPECTED: Expected[] = [
  ...Object.entries(COMPOSITION_TOPICS).map(([date, topic]): Expected => ({ type: "CLASS", date, time: "11:00", title: topic })),
  ...weekly("2026-08-25", "2026-12-03", ["Tue"], ["2026-11-24"]).map((date): Expected => ({
    type: "MEETING",
    date,
    time: "13:30",
    title: "Office hours",
  })),
  ...weekly("2026-08-25", "2026-12-03", ["Wed"]).map((date): Expected => ({ type: "MEETING", date, time: "10:00", title: "Office hours" })),
  { type: "MEETING", date: "2026-09-24", time: null, title: "conference" },
  { type: "MEETING", date: "2026-10-20", time: null, title: "conference" },
  { type: "MEETING", date: "2026-11-19", time: null, title: "conference" },
  { type: "EXAM", date: "2026-10-01", time: "11:00", title: "Quiz" },
  { type: "DEADLINE", date: "2026-09-10", time: "11:00", title: "Literacy Narrative" },
  { type: "DEADLINE", date: "2026-09-29", time: null, title: "Rhetorical Analysis draft" },
  { type: "DEADLINE", date: "2026-10-06", time: null, title: "Rhetorical Analysis" },
  { type: "DEADLINE", date: "2026-10-15", time: null, title: "Annotated bibliography" },
  { type: "DEADLINE", date: "2026-10-29", time: null, title: "proposal" },
  { type: "DEADLINE", date: "2026-11-10", time: null, title: "draft 1" },
  { type: "DEADLINE", date: "2026-12-01", time: null, title: "Research Argument" },
  { type: "DEADLINE", date: "2026-12-08", time: "23:59", title: "Final Portfolio" },
];

// (6) Held out: written after (1)-(5) and scored as it came: recall 68.2%, wrong 32.8% (a tab-separated row that
// starts with an empty cell lost its columns; "(online, due 9 AM)" became a deadline of its own); both fixed. A
// spreadsheet exported with tab-separated cells, a Winter quarter in Los Angeles.
const BIOLOGY_TABS = `BIOL 2B — Cell Biology — Winter Quarter 2027
Lecture: MWF 1:10–2:00 PM, Pacific Hall 106
Discussion section: Tuesdays 4:00–4:50 PM, York Hall 2622
Instructor office hours: Thursdays 2:30–3:30 PM (Bonner Hall 3115) and by appointment
TA office hours: Fridays 10–11 AM on Zoom

Week\tDate\tTopic\tAssessment
1\tMon 1/4\tCells and the molecules of life\t
\tWed 1/6\tMembranes\t
\tFri 1/8\tMembrane transport\tPre-lecture quiz 1 (online, due 9 AM)
2\tMon 1/11\tEnergy and enzymes\t
\tWed 1/13\tGlycolysis\t
\tFri 1/15\tRespiration\tProblem set 1 due
3\tMon 1/18\tMLK Day – no lecture\t
\tWed 1/20\tPhotosynthesis\t
\tFri 1/22\tCytoskeleton\t
4\tMon 1/25\tCell motility\t
\tWed 1/27\tMidterm 1 (in lecture)\t
\tFri 1/29\tProtein sorting\t
5\tMon 2/1\tVesicle traffic\tProblem set 2 due
\tWed 2/3\tCell signaling I\t
\tFri 2/5\tCell signaling II\t
6\tMon 2/8\tCell cycle\t
\tWed 2/10\tMitosis\t
\tFri 2/12\tMeiosis\tProblem set 3 due
7\tMon 2/15\tPresidents' Day – no lecture\t
\tWed 2/17\tApoptosis\t
\tFri 2/19\tMidterm 2 (in lecture)\t
8\tMon 2/22\tStem cells\t
\tWed 2/24\tCancer biology\t
\tFri 2/26\tReview\tProblem set 4 due
9\tMon 3/1\tImmunology I\t
\tWed 3/3\tImmunology II\t
\tFri 3/5\tNeurons\tProblem set 5 due
10\tMon 3/8\tDevelopment\t
\tWed 3/10\tAging\t
\tFri 3/12\tCourse review\tFinal project poster due

Final exam: Saturday, March 13, 8:00–11:00 AM (location TBA)
`;

const BIOLOGY_TOPICS: Record<string, string> = {
  "2027-01-04": "Cells and the molecules of life",
  "2027-01-06": "Membranes",
  "2027-01-08": "Membrane transport",
  "2027-01-11": "Energy and enzymes",
  "2027-01-13": "Glycolysis",
  "2027-01-15": "Respiration",
  "2027-01-20": "Photosynthesis",
  "2027-01-22": "Cytoskeleton",
  "2027-01-25": "Cell motility",
  "2027-01-29": "Protein sorting",
  "2027-02-01": "Vesicle traffic",
  "2027-02-03": "Cell signaling I",
  "2027-02-05": "Cell signaling II",
  "2027-02-08": "Cell cycle",
  "2027-02-10": "Mitosis",
  "2027-02-12": "Meiosis",
  "2027-02-17": "Apoptosis",
  "2027-02-22": "Stem cells",
  "2027-02-24": "Cancer biology",
  "2027-02-26": "Review",
  "2027-03-01": "Immunology I",
  "2027-03-03": "Immunology II",
  "2027-03-05": "Neurons",
  "2027-03-08": "Development",
  "2027-03-10": "Aging",
  "2027-03-12": "Course review",
};

const BIOLOGY_EXPECTED: Expected[] = [
  ...Object.entries(BIOLOGY_TOPICS).map(([date, topic]): Expected => ({ type: "CLASS", date, time: "13:10", title: topic })),
  ...weekly("2027-01-04", "2027-03-12", ["Tue"]).map((date): Expected => ({ type: "CLASS", date, time: "16:00", title: "Section" })),
  ...weekly("2027-01-04", "2027-03-12", ["Thu"]).map((date): Expected => ({ type: "MEETING", date, time: "14:30", title: "Office hours" })),
  ...weekly("2027-01-04", "2027-03-12", ["Fri"]).map((date): Expected => ({ type: "MEETING", date, time: "10:00", title: "Office hours" })),
  { type: "EXAM", date: "2027-01-08", time: "09:00", title: "Quiz 1" },
  { type: "EXAM", date: "2027-01-27", time: "13:10", title: "Midterm Exam 1" },
  { type: "EXAM", date: "2027-02-19", time: "13:10", title: "Midterm Exam 2" },
  { type: "EXAM", date: "2027-03-13", time: "08:00", title: "Final Exam" },
  { type: "DEADLINE", date: "2027-01-15", time: null, title: "Problem set 1" },
  { type: "DEADLINE", date: "2027-02-01", time: null, title: "Problem set 2" },
  { type: "DEADLINE", date: "2027-02-12", time: null, title: "Problem set 3" },
  { type: "DEADLINE", date: "2027-02-26", time: null, title: "Problem set 4" },
  { type: "DEADLINE", date: "2027-03-05", time: null, title: "Problem set 5" },
  { type: "DEADLINE", date: "2027-03-12", time: null, title: "poster" },
];

describe("syllabus parser on realistic syllabi", () => {
  const cases = [
    {
      name: "table (GEOL 101, pdftotext -layout)",
      text: GEOLOGY_TABLE,
      expected: GEOLOGY_EXPECTED,
      timeZone: NEW_YORK,
      uploaded: "2026-08-20T15:00:00Z",
      termYear: 2026,
    },
    {
      name: "prose (HIST 210)",
      text: HISTORY_PROSE,
      expected: HISTORY_EXPECTED,
      timeZone: CHICAGO,
      uploaded: "2026-12-28T15:00:00Z",
      termYear: 2027,
    },
    {
      name: "weekly schedule (CHEM 1210)",
      text: CHEMISTRY_WEEKLY,
      expected: CHEMISTRY_EXPECTED,
      timeZone: NEW_YORK,
      uploaded: "2026-08-25T15:00:00Z",
      termYear: 2026,
    },
    {
      name: "held-out bullets (ENGL 1010)",
      text: COMPOSITION_BULLETS,
      expected: COMPOSITION_EXPECTED,
      timeZone: NEW_YORK,
      uploaded: "2026-08-10T15:00:00Z",
      termYear: 2026,
    },
    {
      name: "held-out tabs (BIOL 2B)",
      text: BIOLOGY_TABS,
      expected: BIOLOGY_EXPECTED,
      timeZone: "America/Los_Angeles",
      uploaded: "2026-12-15T18:00:00Z",
      termYear: 2027,
    },
    {
      name: "held-out pipe table (PSYC 2300)",
      text: PSYCHOLOGY_PIPES,
      expected: PSYCHOLOGY_EXPECTED,
      timeZone: CHICAGO,
      uploaded: "2027-01-10T15:00:00Z",
      termYear: 2027,
    },
  ];

  it.each(cases)("$name: recall ≥ 90% and wrong events ≤ 10%", ({ name, text, expected, timeZone, uploaded, termYear }) => {
    const parsed = parseSyllabus(text, { referenceDate: new Date(uploaded), timeZone });
    const result = score(parsed.items, expected, timeZone);
    report(name, result);
    expect(parsed.termYear).toBe(termYear);
    expect(result.recall).toBeGreaterThanOrEqual(0.9);
    expect(result.wrongRate).toBeLessThanOrEqual(0.1);
  });

  it("reads titles, locations, end times and descriptions a person would write", () => {
    const geology = parseSyllabus(GEOLOGY_TABLE, { referenceDate: new Date("2026-08-20T15:00:00Z"), timeZone: NEW_YORK }).items;
    const plate = geology.find((item) => item.localDate === "2026-09-15" && item.type === "CLASS");
    expect(plate).toMatchObject({
      title: "Lecture: Plate tectonics",
      startTime: new Date("2026-09-15T13:30:00Z"),
      endTime: new Date("2026-09-15T14:45:00Z"),
      allDay: false,
      location: "Hartley Hall 120",
    });
    expect(geology.find((item) => item.localDate === "2026-09-15" && item.type === "DEADLINE")).toMatchObject({
      title: "Problem Set 1 due",
      allDay: true,
      startTime: new Date("2026-09-15T00:00:00Z"),
      endTime: null,
    });
    const final = geology.find((item) => item.title === "Final Exam");
    expect(final).toMatchObject({ startTime: new Date("2026-12-15T13:00:00Z"), endTime: new Date("2026-12-15T15:30:00Z") });
    expect(final?.description).toBe("Final Exam: Tuesday, December 15, 8:00–10:30 AM, Hartley Hall 120");

    const history = parseSyllabus(HISTORY_PROSE, { referenceDate: new Date("2026-12-28T15:00:00Z"), timeZone: CHICAGO }).items;
    expect(history.find((item) => item.type === "EXAM" && item.localDate === "2027-03-11")).toMatchObject({
      title: "Midterm Exam",
      location: "Hall B",
      startTime: new Date("2027-03-12T01:00:00Z"),
      endTime: null,
    });
    expect(history.find((item) => item.localDate === "2027-05-14")).toMatchObject({ title: "Final papers due", type: "DEADLINE" });
    for (const item of [...geology, ...history]) {
      expect(item.title.length).toBeGreaterThan(0);
      expect(item.title.length).toBeLessThanOrEqual(255);
      expect(item.description.length).toBeLessThanOrEqual(1000);
    }
  });
});

describe("syllabus parser rules", () => {
  it("puts the January finals of a Fall term in the next year", () => {
    const text = [
      "PHYS 201 Mechanics — Fall 2026",
      "Problem set 6 due Dec 11",
      "Final exam: Jan 14, 9:00-12:00, Room 101",
      "Final project due January 20",
    ].join("\n");
    const { items, termYear } = parseSyllabus(text, { referenceDate: new Date("2026-08-15T12:00:00Z"), timeZone: NEW_YORK });
    expect(termYear).toBe(2026);
    expect(items.map((item) => [item.type, item.localDate, item.title])).toEqual([
      ["DEADLINE", "2026-12-11", "Problem set 6 due"],
      ["EXAM", "2027-01-14", "Final Exam"],
      ["DEADLINE", "2027-01-20", "Final project due"],
    ]);
    expect(items[1]).toMatchObject({ startTime: new Date("2027-01-14T14:00:00Z"), endTime: new Date("2027-01-14T17:00:00Z"), location: "Room 101" });
  });

  it("takes the term year from the document rather than the upload date, and from the upload date when it names none", () => {
    const named = parseSyllabus("Spring 2028\nMidterm: March 2 at 10am", { referenceDate: new Date("2026-05-01T12:00:00Z"), timeZone: NEW_YORK });
    expect(named.items.map((item) => item.localDate)).toEqual(["2028-03-02"]);
    const academic = parseSyllabus("Academic year 2026-2027\nQuiz 4: Feb 3", { referenceDate: new Date("2025-01-01T12:00:00Z"), timeZone: NEW_YORK });
    expect(academic.items.map((item) => item.localDate)).toEqual(["2027-02-03"]);
    // Uploaded in late December for the spring term: January dates are the coming January.
    const unnamed = parseSyllabus("Quiz 1 on Jan 21\nPaper 1 due Feb 4", { referenceDate: new Date("2026-12-20T12:00:00Z"), timeZone: NEW_YORK });
    expect(unnamed.items.map((item) => item.localDate)).toEqual(["2027-01-21", "2027-02-04"]);
    expect(unnamed.termYear).toBe(2027);
  });

  it("keeps a 10:00 class at 10:00 New York time on both sides of the November DST change", () => {
    const { items } = parseSyllabus("Lectures: Mondays 10:00-11:15 AM, Oct 26 – Nov 9", {
      referenceDate: new Date("2026-08-20T12:00:00Z"),
      timeZone: NEW_YORK,
    });
    expect(items.map((item) => [item.localDate, item.startTime.toISOString(), item.endTime?.toISOString()])).toEqual([
      ["2026-10-26", "2026-10-26T14:00:00.000Z", "2026-10-26T15:15:00.000Z"],
      ["2026-11-02", "2026-11-02T15:00:00.000Z", "2026-11-02T16:15:00.000Z"],
      ["2026-11-09", "2026-11-09T15:00:00.000Z", "2026-11-09T16:15:00.000Z"],
    ]);
    expect(items.map((item) => localTime(item.startTime, NEW_YORK))).toEqual(["10:00", "10:00", "10:00"]);
    const spring = parseSyllabus("Spring 2027\nSeminar: Mondays 10:00-11:15 AM, Mar 8 – Mar 15", {
      referenceDate: new Date("2027-01-05T12:00:00Z"),
      timeZone: NEW_YORK,
    });
    expect(spring.items.map((item) => item.startTime.toISOString())).toEqual(["2027-03-08T15:00:00.000Z", "2027-03-15T14:00:00.000Z"]);
  });

  it("reads the weekday forms of timetables", () => {
    const days = (line: string) =>
      parseSyllabus(`${line}\nClasses begin Sep 7\nClasses end Sep 13`, {
        referenceDate: new Date("2026-08-20T12:00:00Z"),
        timeZone: NEW_YORK,
      }).items.map((item) => new Date(`${item.localDate}T00:00:00Z`).getUTCDay());
    expect(days("Lecture MWF 9:00-9:50")).toEqual([1, 3, 5]);
    expect(days("Seminar TTh 1:00-2:15")).toEqual([2, 4]);
    expect(days("Lab TR 2-4pm")).toEqual([2, 4]);
    expect(days("Lectures Mondays and Wednesdays at 11am")).toEqual([1, 3]);
    expect(days("Section Tue & Thu 3:30-4:20 PM")).toEqual([2, 4]);
    expect(days("Office hours: Mon/Wed 2-3pm")).toEqual([1, 3]);
    expect(days("Tutorials every Friday 10:00-11:00")).toEqual([5]);
  });

  it("gives the same keys when the same syllabus is parsed again or its unrelated lines move", () => {
    const options = { referenceDate: new Date("2026-08-25T15:00:00Z"), timeZone: NEW_YORK };
    const first = parseSyllabus(CHEMISTRY_WEEKLY, options).items;
    const again = parseSyllabus(CHEMISTRY_WEEKLY, options).items;
    expect(again.map((item) => item.key)).toEqual(first.map((item) => item.key));
    expect(new Set(first.map((item) => item.key)).size).toBe(first.length);

    // The schedule's weeks in reverse order and the important dates moved to the end.
    const lines = CHEMISTRY_WEEKLY.split("\n");
    const weeks = lines.filter((line) => line.startsWith("Week "));
    const important = lines.slice(lines.indexOf("IMPORTANT DATES"), lines.indexOf("IMPORTANT DATES") + 5);
    const rest = lines.filter((line) => !weeks.includes(line) && !important.includes(line));
    const reordered = parseSyllabus([...rest, ...weeks.reverse(), "", ...important].join("\n"), options).items;
    const keyed = (items: SyllabusItem[]) =>
      new Map(items.map((item) => [`${item.type} ${item.localDate} ${item.startTime.toISOString()} ${item.title}`, item.key]));
    expect(keyed(reordered)).toEqual(keyed(first));
  });

  it("removes class meetings on holidays and lets an in-class exam take the lecture's slot", () => {
    const text = [
      "Lectures: Tue/Thu 11:00-12:15, Sep 1 - Sep 17",
      "Sep 8: Midterm exam (in class)",
      "Sep 10: No class – instructor at a conference",
      "Sep 15: Quiz 1",
    ].join("\n");
    const { items } = parseSyllabus(text, { referenceDate: new Date("2026-08-20T12:00:00Z"), timeZone: NEW_YORK });
    expect(items.map((item) => [item.localDate, localTime(item.startTime, NEW_YORK), item.type, item.title])).toEqual([
      ["2026-09-01", "11:00", "CLASS", "Lecture"],
      ["2026-09-03", "11:00", "CLASS", "Lecture"],
      ["2026-09-08", "11:00", "EXAM", "Midterm Exam"],
      ["2026-09-15", "11:00", "CLASS", "Lecture"],
      ["2026-09-15", "11:00", "EXAM", "Quiz 1"],
      ["2026-09-17", "11:00", "CLASS", "Lecture"],
    ]);
  });

  it("classifies each dated line, an exam word winning over 'due'", () => {
    const text = [
      "Sep 3: Quiz 2 due on Canvas",
      "Sep 4: Homework 1 due",
      "Sep 5: Office hours moved to 2pm",
      "Sep 8: Lab 2 – titration",
      "Sep 9: Plate tectonics",
      "Sep 10: Last day to drop",
      "Sep 11: Problem Set 2 released",
      "Sep 14: Final project proposal due",
    ].join("\n");
    const { items, skippedLines } = parseSyllabus(text, { referenceDate: new Date("2026-08-20T12:00:00Z"), timeZone: NEW_YORK });
    expect(items.map((item) => [item.localDate, item.type, item.title])).toEqual([
      ["2026-09-03", "EXAM", "Quiz 2"],
      ["2026-09-04", "DEADLINE", "Homework 1 due"],
      ["2026-09-05", "MEETING", "Office hours"],
      ["2026-09-08", "CLASS", "Lab 2 – titration"],
      ["2026-09-09", "CLASS", "Lecture: Plate tectonics"],
      ["2026-09-14", "DEADLINE", "Final project proposal due"],
    ]);
    expect(skippedLines).toBe(2);
  });

  it("returns no items for junk and never throws", () => {
    const options = { referenceDate: new Date("2026-08-20T12:00:00Z"), timeZone: NEW_YORK };
    expect(parseSyllabus("", options)).toEqual({ items: [], termYear: 2026, skippedLines: 0 });
    expect(parseSyllabus("lorem ipsum dolor sit amet\n\u0000\u0001\u0002 ¯\\_(ツ)_/¯ |||| \t\t 12:99 99/99 Feb 31", options).items).toEqual([]);
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const alphabet = "abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ 0123456789 :/-–|\t\n.,;()#&MTWRF SepOctDec duequizlab";
    for (let round = 0; round < 30; round++) {
      const junk = Array.from({ length: 400 }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
      expect(() => parseSyllabus(junk, options)).not.toThrow();
    }
    const longLine = `Midterm exam Oct 15 ${"x".repeat(1200)}`;
    expect(parseSyllabus(longLine, options)).toMatchObject({ items: [], skippedLines: 1 });
    expect(() => parseSyllabus("Quiz Oct 1", { ...options, timeZone: "Mars/Olympus" })).toThrow(RangeError);
  });

  it("stops at maxItems, keeping the earliest", () => {
    const options = { referenceDate: new Date("2026-08-25T15:00:00Z"), timeZone: NEW_YORK };
    const all = parseSyllabus(CHEMISTRY_WEEKLY, options).items;
    const few = parseSyllabus(CHEMISTRY_WEEKLY, { ...options, maxItems: 5 }).items;
    expect(few).toEqual(all.slice(0, 5));
    // Seven daily series over a 16-week term: 560 occurrences, cut at the default 500.
    const busy = ["Lectures", "Labs", "Sections", "Seminars", "Tutorials", "Recitations", "Office hours"]
      .map((name, index) => `${name}: MTWRF ${8 + index}:00-${8 + index}:50, Sep 1 - Dec 18`)
      .join("\n");
    const bounded = parseSyllabus(busy, options).items;
    expect(bounded).toHaveLength(500);
    const firstLines = parseSyllabus(busy, { ...options, maxLines: 2 });
    expect(new Set(firstLines.items.map((item) => item.title))).toEqual(new Set(["Lecture", "Lab"]));
    expect(firstLines.skippedLines).toBe(5);
    expect(bounded.at(-1)?.startTime.getTime()).toBeLessThanOrEqual(
      Math.min(
        ...parseSyllabus(busy, { ...options, maxItems: 1000 })
          .items.slice(500)
          .map((item) => item.startTime.getTime()),
      ),
    );
  });
});
