-- CreateTable
CREATE TABLE "indexed_source" (
    "source_type" VARCHAR(10) NOT NULL,
    "source_id" TEXT NOT NULL,
    "version" TIMESTAMPTZ(3),
    "forgotten" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "indexed_source_pkey" PRIMARY KEY ("source_type","source_id")
);
