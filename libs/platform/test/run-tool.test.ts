import { execFileSync } from "node:child_process";
import { ExternalToolError, runTool } from "../src/run-tool";

/** The processes this test process started that still run, by command name. */
function children(name: string): string[] {
  const output = execFileSync("ps", ["-o", "comm=", "--ppid", String(process.pid)], { encoding: "utf8" });
  return output
    .split("\n")
    .map((line) => line.trim())
    .filter((command) => command === name);
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => new Error("the tool succeeded"),
    (error: unknown) => error,
  );
}

describe("runTool", () => {
  it("resolves with stdout and passes arguments without a shell", async () => {
    expect(await runTool("printf", ["%s|%s", "$HOME", "a; rm -rf /"])).toBe("$HOME|a; rm -rf /");
  });

  it("hands each stdout line over as it comes, multi-byte characters intact", async () => {
    const lines: string[] = [];
    await runTool("printf", ["naïve\ncafé\nlast"], { onStdoutLine: (line) => lines.push(line) });
    expect(lines).toEqual(["naïve", "café", "last"]);
  });

  it("adds environment variables", async () => {
    expect(await runTool("printenv", ["OMP_THREAD_LIMIT"], { env: { OMP_THREAD_LIMIT: "1" } })).toBe("1\n");
  });

  it("rejects a failure with the exit code and stderr's tail", async () => {
    const error = await rejection(runTool("sh", ["-c", "echo one >&2; echo two >&2; exit 3"]));
    expect(error).toBeInstanceOf(ExternalToolError);
    expect(error).toMatchObject({
      tool: "sh",
      exitCode: 3,
      stderrTail: ["one", "two"],
      failure: "failed",
      message: "sh failed with exit code 3: one | two",
    });
  });

  it("says when a tool is not installed", async () => {
    const error = await rejection(runTool("no-such-tool-here", []));
    expect(error).toMatchObject({ failure: "not-started", message: "no-such-tool-here is not installed (not found on PATH)" });
  });

  it("kills a tool that writes more than maxStdoutBytes, without keeping its output", async () => {
    // `yes` writes forever: it must fail, not fill the memory.
    const error = await rejection(runTool("yes", ["a line of output"], { maxStdoutBytes: 256 * 1024 }));
    expect(error).toMatchObject({ tool: "yes", failure: "output-too-large", message: "yes wrote more than 262144 bytes" });
    expect(children("yes")).toEqual([]);
  });

  it("kills a tool that runs over timeoutMs", async () => {
    const started = Date.now();
    const error = await rejection(runTool("sleep", ["30"], { timeoutMs: 200 }));
    expect(error).toMatchObject({ tool: "sleep", failure: "timeout", message: "sleep did not finish within 200 ms" });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(children("sleep")).toEqual([]);
  });

  it("kills the tool on abort and rejects with the signal's reason once it is gone", async () => {
    const controller = new AbortController();
    const reason = new Error("stopping");
    const running = rejection(runTool("sleep", ["30"], { signal: controller.signal }));
    controller.abort(reason);
    expect(await running).toBe(reason);
    expect(children("sleep")).toEqual([]);
  });
});
