import { LocalFileStorage } from "./local-file-storage";

/**
 * For tests: local storage whose deletions fail while `down` (an unreachable S3, say), so a consumer's
 * dead-letter path can be driven. Not exported from the package's main entry: production code never loads it.
 */
export class StorageWithOutage extends LocalFileStorage {
  down = false;

  override async delete(key: string): Promise<void> {
    if (this.down) throw new Error("storage unavailable (drill)");
    await super.delete(key);
  }
}
