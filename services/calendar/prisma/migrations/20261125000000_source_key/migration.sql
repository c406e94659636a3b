-- Events made from an outside source (a syllabus): the item's key, made once per user (CreateEventsFromSource).
-- NULLs are distinct in a unique index, so events without a source are unaffected.
-- AlterTable
ALTER TABLE "calendar_event" ADD COLUMN     "source_key" VARCHAR(512);

-- CreateIndex
CREATE UNIQUE INDEX "calendar_event_user_id_source_key_key" ON "calendar_event"("user_id", "source_key");
