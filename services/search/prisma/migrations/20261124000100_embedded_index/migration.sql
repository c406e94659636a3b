-- The embedded search index (SEARCH_ENGINE=embedded, the default): PostgreSQL full-text search over one row per
-- record, and per-user terms for typo correction and suggestions. Written by hand (Prisma's schema cannot express
-- generated tsvector columns, GIN or trigram indexes); used only by src/adapters/index/postgres.

-- Trigram similarity for typo correction (a trusted extension, shipped with PostgreSQL's contrib and the embedded one).
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- Keywords as one text for the generated column (array_to_string is only STABLE in general; for text[] it is immutable).
CREATE FUNCTION search_keywords_text(keywords text[]) RETURNS text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT array_to_string(keywords, ' ') $$;

-- The tsquery matching one query word, or any of its typo corrections: each word's 'english' stem and its 'simple'
-- (lower-cased) form, OR-ed. `is_prefix` (the last word, being typed) also matches longer words; `weights`
-- ('', 'A', 'B', 'C' …) restricts the match to fields. The words are letters and digits only (the adapter's
-- tokenizer), and each lexeme is quoted anyway. NULL when no word yields a lexeme.
CREATE FUNCTION search_word_query(words text[], is_prefix boolean, weights text) RETURNS tsquery
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$
    SELECT string_agg(
      '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || ''''
        || CASE WHEN is_prefix OR weights <> '' THEN ':' || CASE WHEN is_prefix THEN '*' ELSE '' END || weights ELSE '' END,
      ' | ' ORDER BY lexeme)::tsquery
    FROM (
      SELECT DISTINCT unnest(tsvector_to_array(to_tsvector('english', word)) || tsvector_to_array(to_tsvector('simple', word))) AS lexeme
      FROM unnest(words) AS word
    ) AS lexemes
  $$;

-- One row per indexed record. The vector weighs the fields A title, B keywords, C description, D content, each in
-- the 'english' configuration (stems: "plants" finds "plant") and the 'simple' one (the words as typed, so that a
-- prefix of an inflected word still matches). Fields are capped so that the vector stays under PostgreSQL's 1 MB
-- limit whatever the text (100 000 characters of content: about two hours of transcript).
CREATE TABLE "search_document" (
    "type" VARCHAR(32) NOT NULL,
    "id" VARCHAR(64) NOT NULL,
    "user_id" TEXT NOT NULL,
    "course_id" TEXT,
    "title" TEXT NOT NULL,
    "keywords" TEXT[] NOT NULL DEFAULT '{}',
    "description" TEXT NOT NULL DEFAULT '',
    "content" TEXT NOT NULL DEFAULT '',
    "difficulty" VARCHAR(16),
    "status" VARCHAR(16),
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    -- The terms this record added to search_term, taken back when it changes or goes.
    "terms" TEXT[] NOT NULL DEFAULT '{}',
    "search_vector" TSVECTOR GENERATED ALWAYS AS (
        setweight(to_tsvector('english', left("title", 1000)), 'A')
        || setweight(to_tsvector('simple', left("title", 1000)), 'A')
        || setweight(to_tsvector('english', left(search_keywords_text("keywords"), 2000)), 'B')
        || setweight(to_tsvector('simple', left(search_keywords_text("keywords"), 2000)), 'B')
        || setweight(to_tsvector('english', left("description", 20000)), 'C')
        || setweight(to_tsvector('simple', left("description", 20000)), 'C')
        || setweight(to_tsvector('english', left("content", 100000)), 'D')
        || setweight(to_tsvector('simple', left("content", 100000)), 'D')
    ) STORED,

    CONSTRAINT "search_document_pkey" PRIMARY KEY ("type", "id")
);

-- Every query is one user's: the user's rows first (about a hundred), then the text match on those.
CREATE INDEX "search_document_user_id_idx" ON "search_document" ("user_id", "created_at");
CREATE INDEX "search_document_search_vector_idx" ON "search_document" USING GIN ("search_vector");

-- The words of each user's titles, keywords and descriptions and the frequent words of their contents, with the
-- number of the user's records holding each: corrections for query words that match nothing, and suggestions.
-- C collation: the primary key then serves prefix ranges (term >= 'phot' AND term < 'phot' || U+10FFFF).
CREATE TABLE "search_term" (
    "user_id" TEXT NOT NULL,
    "term" TEXT COLLATE "C" NOT NULL,
    "frequency" INTEGER NOT NULL,

    CONSTRAINT "search_term_pkey" PRIMARY KEY ("user_id", "term")
);

CREATE INDEX "search_term_term_trgm_idx" ON "search_term" USING GIN ("term" gin_trgm_ops);
