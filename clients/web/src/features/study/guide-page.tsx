import { useQuery } from "@tanstack/react-query";
import { useNavigate, useParams } from "react-router";
import { QueryState } from "../../components/page-state";
import { Markdown } from "../../components/markdown";
import { DeleteMaterial } from "./delete-material";
import { GenerationNotice, MaterialMeta } from "./material-meta";
import { fetchGuide, studyKeys } from "./queries";
import { SourceLink, useNoteTitles } from "./source-link";
import "./study.css";

/** The guide's Markdown without its leading "# Title" line: the page's own heading shows the title. */
export function withoutTitle(markdown: string, title: string): string {
  const lines = markdown.split("\n");
  const first = lines.findIndex((line) => line.trim() !== "");
  if (first >= 0 && lines[first].trim() === `# ${title}`.trim()) lines.splice(first, 1);
  return lines.join("\n").trim();
}

/** `/study/guides/:guideId`: the study guide rendered from its Markdown, and where each section came from. */
export function GuidePage() {
  const { guideId = "" } = useParams();
  const navigate = useNavigate();
  const guide = useQuery({ queryKey: studyKeys.guide(guideId), queryFn: () => fetchGuide(guideId) });
  const titleOf = useNoteTitles(guide.data?.note);
  return (
    <>
      <h1>{guide.data?.title ?? "Study guide"}</h1>
      <GenerationNotice />
      <QueryState query={guide} label="Loading the study guide…">
        {(loaded) => {
          const sourced = [...loaded.sections].sort((a, b) => a.order - b.order).filter((section) => section.source);
          return (
            <>
              <MaterialMeta
                course={loaded.course}
                note={loaded.note}
                noteCount={loaded.noteIds.length}
                difficulty={loaded.difficulty}
                createdAt={loaded.createdAt}
              />
              <Markdown>{withoutTitle(loaded.content, loaded.title)}</Markdown>
              {sourced.length > 0 && (
                <section aria-labelledby="sources-heading">
                  <h2 id="sources-heading">Where each section comes from</h2>
                  <ul className="list sources">
                    {sourced.map((section) => (
                      <li key={section.id}>
                        <strong>{section.title}</strong>
                        <SourceLink source={section.source} titleOf={titleOf} />
                      </li>
                    ))}
                  </ul>
                </section>
              )}
              <div className="danger-zone">
                <DeleteMaterial kind="guide" id={loaded.id} title={loaded.title} onDeleted={() => void navigate("/study")} />
              </div>
            </>
          );
        }}
      </QueryState>
    </>
  );
}
