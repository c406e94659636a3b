/**
 * `npm run bench:documents`: text extraction by the documents worker (issue #13), through the whole stack: a
 * document is uploaded through the gateway and timed until GET /api/documents/{id} shows it COMPLETED (upload,
 * queue, download from storage, extraction, chunking, the transaction, polled every 50 ms). While it runs, the
 * worker's resident memory (its Node process, and with the tools it runs: poppler, tesseract) is sampled every
 * 20 ms.
 *
 *   1. a text PDF of --pages pages (≈ 300 words each): extraction time per page, worker memory;
 *   2. a scanned PDF of --scanned pages (images only, OCR at 200 dpi): time per page, worker memory;
 *   3. each --runs times; the worker's idle memory before and after (growth across runs).
 *
 * Options: --pages=100 --scanned=10 --runs=3. Results: bench/results/documents-<time>.json.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { httpClient, signUpWithCourse, uploadMultipart, type SignedUpUserWithCourse } from "@study/testkit";
import { pdfOfPages, scannedPdfOfPages } from "@study/testkit/documents";
import { cleanupOnExit } from "./cleanup";
import { RESULTS_DIR, descendants, option, processes, sleep, startBenchStack, type ProcessInfo } from "./common";

const PAGES = option("pages", 100);
const SCANNED = option("scanned", 10);
const RUNS = option("runs", 3);

const say = (line: string) => process.stdout.write(`[bench:documents] ${line}\n`);
const round = (value: number, digits = 1) => Number(value.toFixed(digits));
const MB = 1024 * 1024;

const WORDS = (
  "cells membrane mitochondria energy respiration glucose protein ribosome nucleus chromosome enzyme reaction " +
  "photosynthesis chloroplast light carbon oxygen water transport diffusion osmosis gradient signal receptor"
).split(" ");

/** About 300 words of lecture-like text for page `index` (deterministic). */
function pageText(index: number): string {
  const sentences: string[] = [];
  for (let sentence = 0; sentence < 25; sentence++) {
    const words = Array.from({ length: 12 }, (_, word) => WORDS[(index * 7 + sentence * 3 + word * 5) % WORDS.length]);
    sentences.push(`${words.join(" ")}.`);
  }
  return `Page ${index + 1}. ${sentences.join(" ")}`;
}

/** Resident memory of a process in bytes (0 once it is gone). */
function rss(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** The documents worker's Node process. */
function workerProcess(): ProcessInfo {
  const worker = descendants(processes()).find((p) => p.cmdline.includes("services/documents/dist/worker.js"));
  if (!worker) throw new Error("the documents worker is not running");
  return worker;
}

/** Samples the worker's memory (alone, and with its children) until `stop` is called; returns the peaks. */
function sampleMemory(workerPid: number) {
  let peakWorker = 0;
  let peakWithTools = 0;
  const timer = setInterval(() => {
    const own = rss(workerPid);
    const all = processes();
    const children = new Set([workerPid]);
    let grew = true;
    while (grew) {
      grew = false;
      for (const p of all) if (!children.has(p.pid) && children.has(p.ppid)) grew = children.add(p.pid) !== undefined;
    }
    const total = [...children].reduce((sum, pid) => sum + rss(pid), 0);
    peakWorker = Math.max(peakWorker, own);
    peakWithTools = Math.max(peakWithTools, total);
  }, 20);
  return {
    stop: () => {
      clearInterval(timer);
      return { peakWorkerMb: round(peakWorker / MB), peakWithToolsMb: round(peakWithTools / MB) };
    },
  };
}

async function main() {
  const baseDir = mkdtempSync(join(tmpdir(), "bench-documents-"));
  const { steps: cleanups, cleanup } = cleanupOnExit(say, () => rmSync(baseDir, { recursive: true, force: true }));
  const logs: string[] = [];
  try {
    say(
      `machine: ${cpus().length} cores, ${round(totalmem() / 1024 ** 3)} GiB, load ${loadavg()
        .map((value) => round(value, 2))
        .join(" ")}`,
    );
    say(`making a ${PAGES}-page text PDF and a ${SCANNED}-page scanned PDF…`);
    const textPdf = await pdfOfPages(Array.from({ length: PAGES }, (_, index) => pageText(index)));
    const scanned = await scannedPdfOfPages(
      Array.from({ length: SCANNED }, (_, index) => `Page ${index + 1}: glucose stores chemical energy in cells`),
    );
    writeFileSync(join(baseDir, "text.pdf"), textPdf);
    writeFileSync(join(baseDir, "scanned.pdf"), scanned);
    say(`text PDF ${round(textPdf.length / MB, 2)} MB, scanned PDF ${round(scanned.length / MB, 2)} MB; starting the stack…`);
    const { stack } = await startBenchStack(baseDir, logs, cleanups, {
      env: { DOCUMENTS_STORAGE_DIR: join(baseDir, "documents"), DOCUMENTS_WORK_DIR: join(baseDir, "documents-work") },
    });
    const api = httpClient(stack.gatewayUrl);
    const user: SignedUpUserWithCourse = await signUpWithCourse(api, { name: "bench", courseName: "Biology" });
    const worker = workerProcess();
    const idleBefore = round(rss(worker.pid) / MB);

    const measure = async (file: string, pages: number) => {
      const memory = sampleMemory(worker.pid);
      const started = performance.now();
      const upload = await uploadMultipart(
        stack.gatewayUrl,
        user.token,
        "/api/documents/upload",
        { courseId: user.courseId },
        { path: join(baseDir, file), name: file, type: "application/pdf" },
      );
      if (upload.status !== 200) throw new Error(`upload answered ${upload.status}: ${JSON.stringify(upload.body)}`);
      const { document } = upload.body as { document: { id: string } };
      const id = document.id;
      for (;;) {
        const answer = await api<{ data?: { status: string; pageCount: number; wordCount: number; failureReason: string | null } }>(
          "GET",
          `/api/documents/${id}?courseId=${user.courseId}`,
          { token: user.token },
        );
        const status = answer.body.data?.status;
        if (status === "COMPLETED") {
          const ms = performance.now() - started;
          const peaks = memory.stop();
          const { pageCount, wordCount } = answer.body.data ?? { pageCount: 0, wordCount: 0 };
          if (pageCount !== pages) throw new Error(`expected ${pages} pages, the document says ${pageCount}`);
          return { ms: Math.round(ms), msPerPage: round(ms / pages), words: wordCount, ...peaks };
        }
        if (status === "FAILED") throw new Error(`${file} failed: ${answer.body.data?.failureReason ?? "no reason"}`);
        await sleep(50);
      }
    };

    const results: Record<string, unknown>[] = [];
    for (let run = 1; run <= RUNS; run++) {
      const text = await measure("text.pdf", PAGES);
      say(
        `run ${run}: text PDF ${PAGES} pages in ${text.ms} ms (${text.msPerPage} ms/page), worker peak ${text.peakWorkerMb} MB (${text.peakWithToolsMb} MB with its tools)`,
      );
      const ocr = await measure("scanned.pdf", SCANNED);
      say(
        `run ${run}: scanned PDF ${SCANNED} pages in ${ocr.ms} ms (${ocr.msPerPage} ms/page), worker peak ${ocr.peakWorkerMb} MB (${ocr.peakWithToolsMb} MB with its tools)`,
      );
      results.push({ run, text, scanned: ocr, idleAfterMb: round(rss(worker.pid) / MB) });
    }
    const idleAfter = round(rss(worker.pid) / MB);
    say(`worker idle: ${idleBefore} MB before, ${idleAfter} MB after ${RUNS} runs`);
    mkdirSync(RESULTS_DIR, { recursive: true });
    const file = join(RESULTS_DIR, `documents-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
    const machine = { cores: cpus().length, load: loadavg() };
    writeFileSync(
      file,
      `${JSON.stringify({ pages: PAGES, scannedPages: SCANNED, machine, idleBeforeMb: idleBefore, idleAfterMb: idleAfter, results }, null, 2)}\n`,
    );
    say(`results: ${file}`);
  } finally {
    await cleanup();
  }
}

main().catch((error: unknown) => {
  say(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
