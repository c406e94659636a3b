import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Confirm } from "../../components/confirm";
import { ErrorMessage } from "../../components/page-state";
import { api, data } from "../../lib/api";
import { studyKeys } from "./queries";

export type MaterialKind = "flashcards" | "quiz" | "guide";

const NAMES: Record<MaterialKind, string> = { flashcards: "flashcard set", quiz: "quiz", guide: "study guide" };

function remove(kind: MaterialKind, id: string) {
  const params = { params: { path: { id } } };
  if (kind === "flashcards") return data(api.DELETE("/api/flashcards/{id}", params));
  if (kind === "quiz") return data(api.DELETE("/api/quizzes/{id}", params));
  return data(api.DELETE("/api/study-guides/{id}", params));
}

/** "Delete <title>", after a confirmation; then the study lists are read again and `onDeleted` runs. */
export function DeleteMaterial({ kind, id, title, onDeleted }: { kind: MaterialKind; id: string; title: string; onDeleted?: () => void }) {
  const queryClient = useQueryClient();
  const deletion = useMutation({
    mutationFn: () => remove(kind, id),
    onSuccess: async () => {
      onDeleted?.();
      await queryClient.invalidateQueries({ queryKey: studyKeys.all });
    },
  });
  return (
    <>
      <Confirm
        trigger={`Delete ${title}`}
        title={`Delete this ${NAMES[kind]}?`}
        confirm="Delete"
        onConfirm={() => deletion.mutate()}
        isDisabled={deletion.isPending}
      >
        <p>
          “{title}” will be deleted{kind === "flashcards" ? " with its cards and their review history" : kind === "quiz" ? " with your attempts" : ""}
          . This cannot be undone.
        </p>
      </Confirm>
      {deletion.error && <ErrorMessage error={deletion.error} />}
    </>
  );
}
