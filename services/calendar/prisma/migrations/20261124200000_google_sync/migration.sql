-- Google Calendar sync: one state row per user (the sync token of the next incremental sync).
CREATE TABLE "google_sync_state" (
    "user_id" TEXT NOT NULL,
    "sync_token" TEXT,
    "synced_at" TIMESTAMPTZ(3),
    CONSTRAINT "google_sync_state_pkey" PRIMARY KEY ("user_id")
);

-- A Google event is one study event per user: imports update it, never duplicate it (also under concurrent syncs).
CREATE UNIQUE INDEX "calendar_event_user_id_google_event_id_key" ON "calendar_event"("user_id", "google_event_id");
