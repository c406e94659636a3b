import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { CheckboxGroup, Form, Group, Input, Label, NumberField, ProgressBar, RadioGroup, Text } from "react-aria-components";
import { Link, useNavigate, useSearchParams } from "react-router";
import { Button } from "../../components/fields";
import { SelectField } from "../../components/select";
import { CheckboxChoice, RadioChoice } from "./choices";
import { Empty, ErrorMessage, QueryState } from "../../components/page-state";
import { api, StudyApiError } from "../../lib/api";
import { formatDate } from "../../lib/time";
import { fetchCourseNotes, fetchCourses, studyKeys, type Difficulty, type Note } from "./queries";

export type MaterialChoice = "flashcards" | "quiz" | "guide";

const CHOICES: { id: MaterialChoice; label: string; noun: string }[] = [
  { id: "flashcards", label: "Flashcards", noun: "flashcards" },
  { id: "quiz", label: "Quiz", noun: "a quiz" },
  { id: "guide", label: "Study guide", noun: "a study guide" },
];

const isChoice = (value: unknown): value is MaterialChoice => CHOICES.some((choice) => choice.id === value);
const isDifficulty = (value: unknown): value is Difficulty => value === "EASY" || value === "MEDIUM" || value === "HARD";

interface GenerationRequest {
  choice: MaterialChoice;
  courseId: string;
  noteIds: string[];
  difficulty: Difficulty;
  count: number;
}

/** The new (or existing) material's page, and the API's message about it. */
interface Generated {
  path: string;
  message: string;
}

/** Answers the envelope's data and message (data() keeps only the data), or throws the API's refusal. */
function unwrap<T>(answer: { data?: { data: T; message: string }; error?: unknown; response: Response }): { data: T; message: string } {
  if (!answer.response.ok || !answer.data) throw StudyApiError.fromBody(answer.response.status, answer.error);
  return answer.data;
}

async function generate({ choice, courseId, noteIds, difficulty, count }: GenerationRequest): Promise<Generated> {
  try {
    if (choice === "flashcards") {
      const { data, message } = unwrap(await api.POST("/api/flashcards/generate", { body: { courseId, noteIds, difficulty, cardCount: count } }));
      return { path: `/study/flashcards/${data.flashcardSet.id}`, message };
    }
    if (choice === "quiz") {
      const { data, message } = unwrap(await api.POST("/api/quizzes/generate", { body: { courseId, noteIds, difficulty, questionCount: count } }));
      return { path: `/study/quizzes/${data.quiz.id}`, message };
    }
    const { data, message } = unwrap(await api.POST("/api/study-guides/generate", { body: { courseId, noteIds, difficulty } }));
    return { path: `/study/guides/${data.id}`, message };
  } catch (error) {
    if (error instanceof StudyApiError) throw error;
    throw StudyApiError.network(error);
  }
}

/** Seconds since `running` became true (the generation's progress line), 0 while it is false. */
function useElapsedSeconds(running: boolean): number {
  const [seconds, setSeconds] = useState(0);
  useEffect(() => {
    if (!running) return;
    const started = Date.now();
    setSeconds(0);
    const timer = setInterval(() => setSeconds(Math.floor((Date.now() - started) / 1000)), 1000);
    return () => clearInterval(timer);
  }, [running]);
  return running ? seconds : 0;
}

const STATUS_WORDS: Record<Note["transcriptionStatus"], string> = {
  PENDING: "waiting to be transcribed",
  PROCESSING: "being transcribed",
  COMPLETED: "",
  FAILED: "transcription failed",
};

function NotePicker({ courseId, selected, onChange }: { courseId: string; selected: string[]; onChange: (ids: string[]) => void }) {
  const notes = useQuery({ queryKey: ["study", "course-notes", courseId], queryFn: () => fetchCourseNotes(courseId) });
  return (
    <QueryState query={notes} label="Loading the course's notes…">
      {(list) =>
        list.length === 0 ? (
          <Empty>
            <p>This course has no notes yet. Import a lecture into it first.</p>
            <Link to={`/courses/${courseId}`}>Open the course</Link>
          </Empty>
        ) : (
          <CheckboxGroup className="choice-group" value={selected} onChange={onChange} name="noteIds" isRequired>
            <Label className="question-label">Notes to use</Label>
            <Text slot="description">Only transcribed notes can be used.</Text>
            {list.map((note) => (
              <CheckboxChoice key={note.id} value={note.id} isDisabled={note.transcriptionStatus !== "COMPLETED"}>
                <span>
                  {note.title}
                  <span className="muted choice-detail">
                    {" "}
                    · {formatDate(note.createdAt)}
                    {note.transcriptionStatus !== "COMPLETED" && ` · ${STATUS_WORDS[note.transcriptionStatus]}`}
                  </span>
                </span>
              </CheckboxChoice>
            ))}
          </CheckboxGroup>
        )
      }
    </QueryState>
  );
}

/**
 * Making flashcards, a quiz or a study guide from chosen notes of a course. Generation takes seconds: the form
 * shows it is working and takes no second submission meanwhile, then opens what was made.
 */
export function GenerateForm() {
  const [search] = useSearchParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const courses = useQuery({ queryKey: ["study", "courses"], queryFn: fetchCourses });
  const [courseId, setCourseId] = useState<string | null>(search.get("courseId"));
  const [noteIds, setNoteIds] = useState<string[]>(search.getAll("noteId"));
  const [choice, setChoice] = useState<MaterialChoice>("flashcards");
  const [difficulty, setDifficulty] = useState<Difficulty>("MEDIUM");
  const [count, setCount] = useState(10);
  const generation = useMutation({
    mutationFn: generate,
    onSuccess: async ({ path, message }) => {
      await queryClient.invalidateQueries({ queryKey: studyKeys.all });
      await navigate(path, { state: { generated: message } });
    },
  });
  const elapsed = useElapsedSeconds(generation.isPending);
  const current = CHOICES.find((entry) => entry.id === choice) ?? CHOICES[0];
  const courseList = courses.data?.courses ?? [];

  return (
    <section className="card" aria-labelledby="generate-heading">
      <h2 id="generate-heading">Make study material</h2>
      <QueryState query={courses} label="Loading your courses…">
        {() =>
          courseList.length === 0 ? (
            <Empty>
              <p>Study material is made from a course's lecture notes. Create a course and import a lecture first.</p>
              <Link to="/courses">Go to your courses</Link>
            </Empty>
          ) : (
            <Form
              onSubmit={(event) => {
                event.preventDefault();
                if (generation.isPending || !courseId || noteIds.length === 0) return;
                generation.mutate({ choice, courseId, noteIds, difficulty, count });
              }}
            >
              <SelectField
                label="Course"
                value={courseId}
                options={courseList.map((course) => ({ key: course.id, label: `${course.emoji ? `${course.emoji} ` : ""}${course.name}` }))}
                onChange={(key) => {
                  setCourseId(key);
                  setNoteIds([]);
                }}
                placeholder="Choose a course"
                isRequired
                isDisabled={generation.isPending}
              />
              {courseId && <NotePicker courseId={courseId} selected={noteIds} onChange={setNoteIds} />}
              <RadioGroup
                className="choice-group inline"
                value={choice}
                onChange={(value) => {
                  if (isChoice(value)) setChoice(value);
                }}
                isDisabled={generation.isPending}
              >
                <Label className="question-label">What to make</Label>
                {CHOICES.map((entry) => (
                  <RadioChoice key={entry.id} value={entry.id}>
                    {entry.label}
                  </RadioChoice>
                ))}
              </RadioGroup>
              <RadioGroup
                className="choice-group inline"
                value={difficulty}
                onChange={(value) => {
                  if (isDifficulty(value)) setDifficulty(value);
                }}
                isDisabled={generation.isPending}
              >
                <Label className="question-label">Difficulty</Label>
                <RadioChoice value="EASY">Easy</RadioChoice>
                <RadioChoice value="MEDIUM">Medium</RadioChoice>
                <RadioChoice value="HARD">Hard</RadioChoice>
              </RadioGroup>
              {choice !== "guide" && (
                <NumberField
                  className="field count"
                  minValue={1}
                  maxValue={50}
                  step={1}
                  value={count}
                  onChange={(value) => setCount(Number.isFinite(value) ? value : 10)}
                  isDisabled={generation.isPending}
                >
                  <Label>{choice === "quiz" ? "Number of questions" : "Number of cards"}</Label>
                  <Group>
                    <Input />
                  </Group>
                  <Text slot="description">From 1 to 50. Notes with fewer facts give fewer.</Text>
                </NumberField>
              )}
              {generation.error && <ErrorMessage error={generation.error} />}
              <Button type="submit" isDisabled={generation.isPending || !courseId || noteIds.length === 0}>
                {generation.isPending ? "Generating…" : `Generate ${current.label.toLowerCase()}`}
              </Button>
              {generation.isPending && (
                <ProgressBar className="progress" isIndeterminate>
                  <Label>
                    Generating {current.noun} from {noteIds.length} {noteIds.length === 1 ? "note" : "notes"}: this can take a few seconds ({elapsed}{" "}
                    s so far).
                  </Label>
                  <div className="bar">
                    <div className="fill indeterminate" />
                  </div>
                </ProgressBar>
              )}
              <p role="status" className="visually-hidden">
                {generation.isPending ? `Generating ${current.noun}…` : ""}
              </p>
            </Form>
          )
        }
      </QueryState>
    </section>
  );
}
