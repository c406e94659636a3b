-- CreateTable
CREATE TABLE "calendar_feed_token" (
    "user_id" TEXT NOT NULL,
    "token" VARCHAR(64) NOT NULL,
    "token_hash" CHAR(64) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "calendar_feed_token_pkey" PRIMARY KEY ("user_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "calendar_feed_token_token_hash_key" ON "calendar_feed_token"("token_hash");
