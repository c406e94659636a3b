-- The start time an event's reminder was sent for: the event is due again when its start moves (reminded_for ≠ start_date).
ALTER TABLE "calendar_event" ADD COLUMN "reminded_for" TIMESTAMPTZ(3);

-- The reminder scheduler scans events of all users by start.
CREATE INDEX "calendar_event_start_date_idx" ON "calendar_event"("start_date");
