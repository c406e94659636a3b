-- The part of a content that ts_headline reads for a snippet: about 700 characters around the first occurrence of
-- any of the needles (the query's words and their stems), cut at word boundaries. ts_headline parses and stems
-- every word it is given, so reading the whole content of each hit made the excerpts the slowest part of a search.
CREATE FUNCTION search_content_window(content text, needles text[]) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$
    WITH lowered AS (
      SELECT lower(left(content, 100000)) AS text
    ), found AS (
      SELECT greatest(1, coalesce(min(nullif(strpos(lowered.text, needle), 0)), 1) - 200) AS start
      FROM lowered, unnest(needles) AS needle
    )
    SELECT CASE
      WHEN char_length(content) <= 700 THEN content
      ELSE regexp_replace(
             regexp_replace(substr(content, found.start, 700), CASE WHEN found.start > 1 THEN '^\S*\s+' ELSE '^' END, ''),
             CASE WHEN found.start + 700 <= char_length(content) THEN '\s+\S*$' ELSE '$' END, '')
    END
    FROM found
  $$;
