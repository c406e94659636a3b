import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { Link } from "react-router";
import { Empty, QueryState } from "../../components/page-state";
import { formatDate } from "../../lib/time";
import { DeleteMaterial, type MaterialKind } from "./delete-material";
import { GenerateForm } from "./generate-form";
import { DIFFICULTY_LABEL, fetchFlashcardSets, fetchGuides, fetchQuizzes, studyKeys, type Difficulty } from "./queries";
import "./study.css";

interface Item {
  id: string;
  title: string;
  path: string;
  course: { name: string } | null;
  detail?: string;
  difficulty: Difficulty;
  createdAt: string;
}

function MaterialList({ kind, items, empty }: { kind: MaterialKind; items: Item[]; empty: ReactNode }) {
  if (items.length === 0) return <Empty>{empty}</Empty>;
  return (
    <ul className="list materials">
      {items.map((item) => (
        <li key={item.id}>
          <Link to={item.path} className="material-title">
            {item.title}
          </Link>
          <p className="muted meta">
            {[item.course?.name, item.detail, `${DIFFICULTY_LABEL[item.difficulty]} level`, formatDate(item.createdAt)].filter(Boolean).join(" · ")}
          </p>
          <DeleteMaterial kind={kind} id={item.id} title={item.title} />
        </li>
      ))}
    </ul>
  );
}

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** `/study`: the user's flashcard sets, quizzes and study guides, and the form that makes more. */
export function StudyPage() {
  const sets = useQuery({ queryKey: studyKeys.flashcardSets, queryFn: fetchFlashcardSets });
  const quizzes = useQuery({ queryKey: studyKeys.quizzes, queryFn: fetchQuizzes });
  const guides = useQuery({ queryKey: studyKeys.guides, queryFn: fetchGuides });
  return (
    <>
      <h1>Study</h1>
      <p>
        <Link to="/review">Review the cards due today</Link>
      </p>
      <GenerateForm />
      <section aria-labelledby="sets-heading">
        <h2 id="sets-heading">Flashcard sets</h2>
        <QueryState query={sets} label="Loading your flashcard sets…">
          {(list) => (
            <MaterialList
              kind="flashcards"
              items={list.map((set) => ({ ...set, path: `/study/flashcards/${set.id}`, detail: count(set.cardCount, "card", "cards") }))}
              empty={<p>No flashcard sets yet. Choose notes above and generate flashcards.</p>}
            />
          )}
        </QueryState>
      </section>
      <section aria-labelledby="quizzes-heading">
        <h2 id="quizzes-heading">Quizzes</h2>
        <QueryState query={quizzes} label="Loading your quizzes…">
          {(list) => (
            <MaterialList
              kind="quiz"
              items={list.map((quiz) => ({
                ...quiz,
                path: `/study/quizzes/${quiz.id}`,
                detail: count(quiz.questions.length, "question", "questions"),
              }))}
              empty={<p>No quizzes yet. Choose notes above and generate a quiz.</p>}
            />
          )}
        </QueryState>
      </section>
      <section aria-labelledby="guides-heading">
        <h2 id="guides-heading">Study guides</h2>
        <QueryState query={guides} label="Loading your study guides…">
          {(list) => (
            <MaterialList
              kind="guide"
              items={list.map((guide) => ({ ...guide, path: `/study/guides/${guide.id}` }))}
              empty={<p>No study guides yet. Choose notes above and generate a study guide.</p>}
            />
          )}
        </QueryState>
      </section>
    </>
  );
}
