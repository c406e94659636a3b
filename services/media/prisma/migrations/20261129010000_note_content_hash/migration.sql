-- The SHA-256 (hex) of an uploaded note's audio, computed while it streamed in: a second upload of the same file by
-- the same user names the earlier note (`duplicateOf`). NULL for imports by URL and for notes uploaded before.

-- AlterTable
ALTER TABLE "note" ADD COLUMN     "content_hash" VARCHAR(64);

-- CreateIndex
CREATE INDEX "note_user_id_content_hash_idx" ON "note"("user_id", "content_hash");
