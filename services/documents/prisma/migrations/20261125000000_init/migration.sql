-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "ProcessingStatus" AS ENUM ('PENDING', 'PROCESSING', 'COMPLETED', 'FAILED');

-- CreateTable
CREATE TABLE "document" (
    "id" UUID NOT NULL,
    "user_id" TEXT NOT NULL,
    "course_id" TEXT NOT NULL,
    "title" VARCHAR(255) NOT NULL,
    "file_name" VARCHAR(255) NOT NULL,
    "file_size" BIGINT NOT NULL,
    "format" VARCHAR(8) NOT NULL,
    "mime_type" VARCHAR(255) NOT NULL,
    "storage_key" VARCHAR(1024) NOT NULL,
    "description" VARCHAR(2000),
    "document_type" VARCHAR(20) NOT NULL,
    "tags" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "status" "ProcessingStatus" NOT NULL DEFAULT 'PENDING',
    "failure_reason" VARCHAR(1000),
    "extracted_text" TEXT,
    "pages" JSONB NOT NULL DEFAULT '[]',
    "author" VARCHAR(255),
    "page_count" INTEGER NOT NULL DEFAULT 0,
    "word_count" INTEGER NOT NULL DEFAULT 0,
    "calendar_events_created" INTEGER,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "document_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "document_chunk" (
    "id" BIGSERIAL NOT NULL,
    "document_id" UUID NOT NULL,
    "user_id" TEXT NOT NULL,
    "course_id" TEXT NOT NULL,
    "page" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,
    "text" TEXT NOT NULL,
    "start_offset" INTEGER NOT NULL,
    "end_offset" INTEGER NOT NULL,
    "embedding" REAL[],
    "embedding_model" VARCHAR(255),

    CONSTRAINT "document_chunk_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "document_user_id_course_id_created_at_idx" ON "document"("user_id", "course_id", "created_at");

-- CreateIndex
CREATE INDEX "document_chunk_user_id_course_id_idx" ON "document_chunk"("user_id", "course_id");

-- CreateIndex
CREATE UNIQUE INDEX "document_chunk_document_id_position_key" ON "document_chunk"("document_id", "position");

-- AddForeignKey
ALTER TABLE "document_chunk" ADD CONSTRAINT "document_chunk_document_id_fkey" FOREIGN KEY ("document_id") REFERENCES "document"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Full-text search inside documents (not expressible in the Prisma schema): the chunk's words, English stemming.
ALTER TABLE "document_chunk" ADD COLUMN "search_vector" tsvector GENERATED ALWAYS AS (to_tsvector('english', "text")) STORED;
CREATE INDEX "document_chunk_search_vector_idx" ON "document_chunk" USING GIN ("search_vector");
