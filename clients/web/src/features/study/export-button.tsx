import { useMutation } from "@tanstack/react-query";
import { Button } from "../../components/fields";
import { ErrorMessage } from "../../components/page-state";
import { api, StudyApiError } from "../../lib/api";

type ExportFormat = "csv" | "apkg";

/** The file name the API gave (Content-Disposition), or one made from the set's title. */
export function downloadName(disposition: string | null, title: string, format: ExportFormat): string {
  const encoded = /filename\*=UTF-8''([^;]+)/i.exec(disposition ?? "")?.[1];
  if (encoded) {
    try {
      return decodeURIComponent(encoded);
    } catch (error) {
      console.warn("An export's file name was not valid percent-encoding", error);
    }
  }
  const plain = /filename="?([^";]+)"?/i.exec(disposition ?? "")?.[1];
  if (plain) return plain;
  const safe = title.replace(/[^\w.-]+/g, "-").replace(/^-+|-+$/g, "") || "flashcards";
  return `${safe}.${format}`;
}

/** Fetches the export through the SDK (so a refusal is shown as the API's sentence) and saves it as a download. */
async function downloadExport(setId: string, title: string, format: ExportFormat): Promise<void> {
  const answer = await api.GET("/api/flashcards/{id}/export", { params: { path: { id: setId }, query: { format } }, parseAs: "blob" });
  if (!answer.response.ok || !(answer.data instanceof Blob)) throw StudyApiError.fromBody(answer.response.status, answer.error);
  const url = URL.createObjectURL(answer.data);
  try {
    const link = document.createElement("a");
    link.href = url;
    link.download = downloadName(answer.response.headers.get("Content-Disposition"), title, format);
    document.body.append(link);
    link.click();
    link.remove();
  } finally {
    // The click has started the download; the URL is no longer needed once it has been read.
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
}

const LABEL: Record<ExportFormat, string> = { apkg: "Download for Anki (.apkg)", csv: "Download as CSV" };

/** A button that downloads the set in one format. */
export function ExportButton({ setId, title, format }: { setId: string; title: string; format: ExportFormat }) {
  const download = useMutation({ mutationFn: () => downloadExport(setId, title, format) });
  return (
    <>
      <Button variant="secondary" onPress={() => download.mutate()} isDisabled={download.isPending}>
        {download.isPending ? `Preparing ${format === "apkg" ? "the Anki package" : "the CSV file"}…` : LABEL[format]}
      </Button>
      {download.error && <ErrorMessage error={download.error} />}
    </>
  );
}
