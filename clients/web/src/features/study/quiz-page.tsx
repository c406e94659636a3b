import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { Form, Label, RadioGroup } from "react-aria-components";
import { RadioChoice } from "./choices";
import { useNavigate, useParams } from "react-router";
import { Button, TextField } from "../../components/fields";
import { Empty, ErrorMessage, QueryState } from "../../components/page-state";
import { api, data } from "../../lib/api";
import { formatDate } from "../../lib/time";
import { DeleteMaterial } from "./delete-material";
import { GenerationNotice, MaterialMeta } from "./material-meta";
import { fetchAttempts, fetchQuiz, studyKeys, type Question, type Quiz, type QuizScore } from "./queries";
import { SourceLink, useNoteTitles } from "./source-link";
import "./study.css";

type Answers = Readonly<Record<string, string>>;

/** The score as a sentence: "4 of 5 correct (80%)". */
export const scoreSentence = (score: Pick<QuizScore, "correctAnswers" | "totalQuestions" | "percentage">) =>
  `${score.correctAnswers} of ${score.totalQuestions} correct (${Math.round(score.percentage)}%)`;

function QuestionField({
  question,
  index,
  answer,
  onAnswer,
  locked,
}: {
  question: Question;
  index: number;
  answer: string;
  onAnswer: (value: string) => void;
  locked: boolean;
}) {
  const label = `${index + 1}. ${question.question}`;
  if (question.type === "short_answer" || question.options.length === 0) {
    return <TextField label={label} value={answer} onChange={onAnswer} isReadOnly={locked} name={`question-${question.id}`} />;
  }
  return (
    <RadioGroup className="choice-group" value={answer || null} onChange={onAnswer} isReadOnly={locked} name={`question-${question.id}`}>
      <Label className="question-label">{label}</Label>
      {question.options.map((option, position) => (
        <RadioChoice key={`${position}-${option}`} value={option}>
          {option}
        </RadioChoice>
      ))}
    </RadioGroup>
  );
}

function QuestionResult({
  result,
  titleOf,
  question,
}: {
  result: QuizScore["results"][number];
  question: Question;
  titleOf: (id: string) => string | undefined;
}) {
  return (
    <div className={`result ${result.isCorrect ? "correct" : "incorrect"}`}>
      <p className="result-verdict">
        <strong>{result.isCorrect ? "Correct." : result.userAnswer === null ? "Not answered." : "Incorrect."}</strong>
        {!result.isCorrect && ` The answer is: ${result.correctAnswer}`}
      </p>
      {result.explanation && <p>{result.explanation}</p>}
      <SourceLink source={question.source} titleOf={titleOf} />
    </div>
  );
}

function TakeQuiz({ quiz }: { quiz: Quiz }) {
  const queryClient = useQueryClient();
  const [answers, setAnswers] = useState<Answers>({});
  const [score, setScore] = useState<QuizScore | null>(null);
  const scoreRef = useRef<HTMLElement>(null);
  const titleOf = useNoteTitles(quiz.note);
  const questions = [...quiz.questions].sort((a, b) => a.order - b.order);
  const submit = useMutation({
    mutationFn: () =>
      data(
        api.POST("/api/quizzes/validate", {
          body: {
            quizId: quiz.id,
            responses: Object.entries(answers)
              .filter(([, answer]) => answer.trim() !== "")
              .map(([questionId, answer]) => ({ questionId, answer })),
          },
        }),
      ),
    onSuccess: async (result) => {
      setScore(result);
      requestAnimationFrame(() => scoreRef.current?.focus());
      await queryClient.invalidateQueries({ queryKey: studyKeys.attempts(quiz.id) });
    },
  });
  const unanswered = questions.filter((question) => !answers[question.id]?.trim()).length;
  const resultOf = (id: string) => score?.results.find((result) => result.questionId === id);

  if (questions.length === 0) {
    return (
      <Empty>
        <p>This quiz has no questions.</p>
      </Empty>
    );
  }
  return (
    <>
      {score && (
        <section ref={scoreRef} tabIndex={-1} className="card score" aria-labelledby="score-heading">
          <h2 id="score-heading">Your score</h2>
          <p className="score-figure">{scoreSentence(score)}</p>
          <p className="muted">Each question below says whether you were right, with its explanation.</p>
        </section>
      )}
      <Form
        className="quiz-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (!submit.isPending && !score) submit.mutate();
        }}
      >
        <ol className="questions">
          {questions.map((question, index) => {
            const result = resultOf(question.id);
            return (
              <li key={question.id} className="card">
                <QuestionField
                  question={question}
                  index={index}
                  answer={answers[question.id] ?? ""}
                  onAnswer={(value) => setAnswers((previous) => ({ ...previous, [question.id]: value }))}
                  locked={score !== null}
                />
                {result ? (
                  <QuestionResult result={result} question={question} titleOf={titleOf} />
                ) : (
                  <SourceLink source={question.source} titleOf={titleOf} />
                )}
              </li>
            );
          })}
        </ol>
        {submit.error && <ErrorMessage error={submit.error} />}
        {score ? (
          <Button
            variant="secondary"
            onPress={() => {
              setScore(null);
              setAnswers({});
              submit.reset();
            }}
          >
            Take the quiz again
          </Button>
        ) : (
          <>
            {unanswered > 0 && (
              <p className="muted">
                {unanswered} of {questions.length} {questions.length === 1 ? "question is" : "questions are"} not answered yet; unanswered questions
                count as wrong.
              </p>
            )}
            <Button type="submit" isDisabled={submit.isPending}>
              {submit.isPending ? "Checking your answers…" : "Submit answers"}
            </Button>
          </>
        )}
      </Form>
    </>
  );
}

function Attempts({ quizId }: { quizId: string }) {
  const attempts = useQuery({ queryKey: studyKeys.attempts(quizId), queryFn: () => fetchAttempts(quizId) });
  return (
    <section aria-labelledby="attempts-heading">
      <h2 id="attempts-heading">Your attempts</h2>
      <QueryState query={attempts} label="Loading your attempts…">
        {(list) =>
          list.length === 0 ? (
            <p className="muted">No attempts yet: your scores will be listed here.</p>
          ) : (
            <ul className="list">
              {list.map((attempt) => (
                <li key={attempt.attemptId}>
                  {formatDate(attempt.submittedAt)}: {scoreSentence(attempt)}
                </li>
              ))}
            </ul>
          )
        }
      </QueryState>
    </section>
  );
}

/** `/study/quizzes/:quizId`: take the quiz, see the score and each question's explanation, and earlier attempts. */
export function QuizPage() {
  const { quizId = "" } = useParams();
  const navigate = useNavigate();
  const quiz = useQuery({ queryKey: studyKeys.quiz(quizId), queryFn: () => fetchQuiz(quizId) });
  return (
    <>
      <h1>{quiz.data?.title ?? "Quiz"}</h1>
      <GenerationNotice />
      <QueryState query={quiz} label="Loading the quiz…">
        {(loaded) => (
          <>
            <MaterialMeta
              course={loaded.course}
              note={loaded.note}
              noteCount={loaded.noteIds.length}
              difficulty={loaded.difficulty}
              createdAt={loaded.createdAt}
              extra={`${loaded.questions.length} ${loaded.questions.length === 1 ? "question" : "questions"}`}
            />
            {loaded.description && <p>{loaded.description}</p>}
            <TakeQuiz key={loaded.id} quiz={loaded} />
            <Attempts quizId={loaded.id} />
            <div className="danger-zone">
              <DeleteMaterial kind="quiz" id={loaded.id} title={loaded.title} onDeleted={() => void navigate("/study")} />
            </div>
          </>
        )}
      </QueryState>
    </>
  );
}
