-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "chat_session" (
    "id" UUID NOT NULL,
    "user_id" TEXT NOT NULL,
    "course_id" TEXT NOT NULL,
    "title" VARCHAR(200) NOT NULL,
    "note_ids" TEXT[],
    "document_ids" TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "chat_session_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "chat_message" (
    "id" UUID NOT NULL,
    "session_id" UUID NOT NULL,
    "user_id" TEXT NOT NULL,
    "role" VARCHAR(10) NOT NULL,
    "content" TEXT NOT NULL,
    "citations" JSONB NOT NULL DEFAULT '[]',
    "engine" VARCHAR(20),
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "chat_message_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "passage" (
    "id" UUID NOT NULL,
    "user_id" TEXT NOT NULL,
    "course_id" TEXT NOT NULL,
    "source_type" VARCHAR(10) NOT NULL,
    "source_id" TEXT NOT NULL,
    "title" VARCHAR(255) NOT NULL,
    "kind" VARCHAR(12) NOT NULL,
    "position" INTEGER NOT NULL,
    "start_time" DOUBLE PRECISION,
    "page" INTEGER,
    "text" TEXT NOT NULL,

    CONSTRAINT "passage_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "chat_session_user_id_course_id_created_at_idx" ON "chat_session"("user_id", "course_id", "created_at");

-- CreateIndex
CREATE INDEX "chat_message_session_id_created_at_idx" ON "chat_message"("session_id", "created_at");

-- CreateIndex
CREATE INDEX "chat_message_user_id_role_created_at_idx" ON "chat_message"("user_id", "role", "created_at");

-- CreateIndex
CREATE INDEX "passage_user_id_course_id_idx" ON "passage"("user_id", "course_id");

-- CreateIndex
CREATE INDEX "passage_source_id_idx" ON "passage"("source_id");

-- AddForeignKey
ALTER TABLE "chat_message" ADD CONSTRAINT "chat_message_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "chat_session"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Full-text search over a passage's title and text (English stemming), for retrieval.
ALTER TABLE "passage" ADD COLUMN "search" tsvector GENERATED ALWAYS AS (to_tsvector('english', "title" || ' ' || "text")) STORED;
CREATE INDEX "passage_search_idx" ON "passage" USING GIN ("search");
