-- A query cancelled (statement_timeout) in the middle of a large GpuSort
-- leaves the session usable: memory is freed with the query, and the next
-- sorts run and return the right rows.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS gpusort;
RESET client_min_messages;
LOAD 'gpusort';
SET gpusort.min_rows = 0;
SET max_parallel_workers_per_gather = 0;

-- long strings sharing a 40-byte prefix under an ICU collation: keys are
-- prefixes, so with gpusort.refine_ties off the comparators settle one
-- tie group of every row (a long pass that the cancel must stop)
CREATE TABLE cx AS
SELECT i, repeat('common prefix ', 3) || md5(i::text) AS s
  FROM generate_series(1, 400000) i;
ANALYZE cx;

SET statement_timeout = '50ms';
SELECT count(*) FROM (SELECT * FROM cx ORDER BY s COLLATE "en-x-icu" OFFSET 1) q;
SET gpusort.refine_ties = off;
SET statement_timeout = '400ms';
SELECT count(*) FROM (SELECT * FROM cx ORDER BY s COLLATE "en-x-icu" OFFSET 1) q;
SET statement_timeout = '200ms';
SELECT count(*) FROM (SELECT * FROM cx ORDER BY i DESC OFFSET 1) q CROSS JOIN generate_series(1, 20);
RESET statement_timeout;
RESET gpusort.refine_ties;

-- the session still sorts, with GpuSort
EXPLAIN (COSTS OFF) SELECT i FROM cx WHERE i % 1000 = 0 ORDER BY s COLLATE "en-x-icu" DESC;
SELECT i FROM cx WHERE i % 20000 = 0 ORDER BY s COLLATE "en-x-icu" DESC;
SET gpusort.enabled = off;
SELECT i FROM cx WHERE i % 20000 = 0 ORDER BY s COLLATE "en-x-icu" DESC;
