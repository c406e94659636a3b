-- The SHA-256 (hex) of a document's file, computed while it streamed in: a second upload of the same file by the
-- same user names the earlier document (`duplicateOf`). NULL for documents uploaded before.

-- AlterTable
ALTER TABLE "document" ADD COLUMN     "content_hash" VARCHAR(64);

-- CreateIndex
CREATE INDEX "document_user_id_content_hash_idx" ON "document"("user_id", "content_hash");
