import { useQuery } from "@tanstack/react-query";
import { Link, useNavigate, useParams } from "react-router";
import { Empty, QueryState } from "../../components/page-state";
import { DeleteMaterial } from "./delete-material";
import { ExportButton } from "./export-button";
import { GenerationNotice, MaterialMeta } from "./material-meta";
import { fetchFlashcardSet, studyKeys } from "./queries";
import { SourceLink, useNoteTitles } from "./source-link";
import "./study.css";

/** `/study/flashcards/:setId`: a set's cards, where each came from, studying it and exporting it. */
export function FlashcardSetPage() {
  const { setId = "" } = useParams();
  const navigate = useNavigate();
  const set = useQuery({ queryKey: studyKeys.flashcardSet(setId), queryFn: () => fetchFlashcardSet(setId) });
  const titleOf = useNoteTitles(set.data?.note);
  return (
    <>
      <h1>{set.data?.title ?? "Flashcard set"}</h1>
      <GenerationNotice />
      <QueryState query={set} label="Loading the flashcard set…">
        {(loaded) => (
          <>
            <MaterialMeta
              course={loaded.course}
              note={loaded.note}
              noteCount={loaded.noteIds.length}
              difficulty={loaded.difficulty}
              createdAt={loaded.createdAt}
              extra={`${loaded.cardCount} ${loaded.cardCount === 1 ? "card" : "cards"}`}
            />
            {loaded.description && <p>{loaded.description}</p>}
            <div className="row toolbar">
              {loaded.flashcards.length > 0 && (
                <Link className="button primary" to={`/study/flashcards/${loaded.id}/review`}>
                  Study this set
                </Link>
              )}
              <ExportButton setId={loaded.id} title={loaded.title} format="apkg" />
              <ExportButton setId={loaded.id} title={loaded.title} format="csv" />
            </div>
            <h2>Cards</h2>
            {loaded.flashcards.length === 0 ? (
              <Empty>
                <p>This set has no cards.</p>
              </Empty>
            ) : (
              <ol className="list cards">
                {loaded.flashcards.map((card) => (
                  <li key={card.id}>
                    <dl className="card-sides">
                      <dt>Front</dt>
                      <dd>{card.front}</dd>
                      <dt>Back</dt>
                      <dd>{card.back}</dd>
                    </dl>
                    <SourceLink source={card.source} titleOf={titleOf} />
                  </li>
                ))}
              </ol>
            )}
            <div className="danger-zone">
              <DeleteMaterial kind="flashcards" id={loaded.id} title={loaded.title} onDeleted={() => void navigate("/study")} />
            </div>
          </>
        )}
      </QueryState>
    </>
  );
}
