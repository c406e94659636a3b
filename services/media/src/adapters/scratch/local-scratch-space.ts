import { mkdir, mkdtemp, rm, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import type { ScratchFolder, ScratchSpace } from "../../application/ports/scratch-space.port";

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
