-- Platform tables present in every database that produces or consumes events.

-- Transactional outbox: rows are written in the same transaction as the state change they announce and
-- published by the relay (libs/events/src/outbox.ts).
CREATE TABLE outbox_message (
  id           text PRIMARY KEY,                 -- the event id (UUIDv7, time-ordered)
  type         text NOT NULL,                    -- routing key
  payload      jsonb NOT NULL,                   -- the EventEnvelope in protobuf JSON form
  created_at   timestamptz NOT NULL DEFAULT now(),
  published_at timestamptz,
  attempts     integer NOT NULL DEFAULT 0,
  last_error   text
);
CREATE INDEX outbox_message_pending_idx ON outbox_message (id) WHERE published_at IS NULL;

-- Wakes the relay at commit time; it also polls, so a missed notification only costs latency.
CREATE FUNCTION outbox_message_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('outbox_message', '');
  RETURN NULL;
END $$;
CREATE TRIGGER outbox_message_notify AFTER INSERT ON outbox_message
  FOR EACH STATEMENT EXECUTE FUNCTION outbox_message_notify();

-- Idempotent inbox: one row per (consumer, event) handled, inserted in the handler's transaction.
CREATE TABLE inbox_message (
  consumer   text NOT NULL,
  event_id   text NOT NULL,
  type       text NOT NULL,
  handled_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (consumer, event_id)
);
