-- The file route (GET /api/files/<key>) finds the note whose audio or attachment a storage key is.

-- CreateIndex
CREATE INDEX "note_audio_storage_key_idx" ON "note"("audio_storage_key");

-- CreateIndex
CREATE INDEX "attachment_storage_key_idx" ON "attachment"("storage_key");
