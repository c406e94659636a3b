-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "indexed_record" (
    "type" VARCHAR(32) NOT NULL,
    "id" VARCHAR(64) NOT NULL,
    "user_id" TEXT NOT NULL,
    "course_id" TEXT,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "indexed_record_pkey" PRIMARY KEY ("type","id")
);

-- CreateTable
CREATE TABLE "course_name" (
    "id" VARCHAR(64) NOT NULL,
    "user_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "semester" TEXT,

    CONSTRAINT "course_name_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "indexed_record_user_id_idx" ON "indexed_record"("user_id");

-- CreateIndex
CREATE INDEX "indexed_record_user_id_course_id_idx" ON "indexed_record"("user_id", "course_id");

-- CreateIndex
CREATE INDEX "course_name_user_id_idx" ON "course_name"("user_id");
