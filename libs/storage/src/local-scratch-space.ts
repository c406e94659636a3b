import { mkdir, mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import type { ScratchFolder, ScratchSpace } from "./port";

/** Scratch folders under one local directory (the worker's own, removed when the worker stops). */
export class LocalScratchSpace implements ScratchSpace {
  constructor(private readonly root: string) {}

  async createFolder(prefix: string): Promise<ScratchFolder> {
    await mkdir(this.root, { recursive: true });
    return new LocalScratchFolder(await mkdtemp(join(this.root, prefix)));
  }
}

class LocalScratchFolder implements ScratchFolder {
  constructor(readonly path: string) {}

  pathOf(name: string): string {
    return join(this.path, name);
  }

  async describe(path: string): Promise<{ size: number; fileName: string }> {
    return { size: (await stat(path)).size, fileName: basename(path) };
  }

  remove(): Promise<void> {
    return rm(this.path, { recursive: true, force: true });
  }
}

/** The scratch folder of this process under `root`: `worker-<pid>` (see removeScratchOfStoppedProcesses). */
export const processScratchFolder = (root: string): string => join(root, `worker-${process.pid}`);

/**
 * Removes the `worker-<pid>` folders under `root` whose process no longer runs (a worker killed by SIGKILL or a
 * crash leaves its files): called at start. Folders are per host, so only this host's processes are checked.
 */
export async function removeScratchOfStoppedProcesses(root: string, onRemoved: (folder: string) => void = () => undefined): Promise<void> {
  const entries = await readdir(root).catch(() => [] as string[]);
  for (const entry of entries) {
    const pid = Number(/^worker-(\d+)$/.exec(entry)?.[1]);
    if (!pid || pid === process.pid || isAlive(pid)) continue;
    await rm(join(root, entry), { recursive: true, force: true });
    onRemoved(entry);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
