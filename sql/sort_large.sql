-- 10^6 rows through GpuSort, compared with stock PostgreSQL by a digest of
-- the whole ordered result: an int8 key, and two columns (an int with many
-- ties, then text in the C collation, DESC).  The sorts must run on the
-- engine, not fall back to tuplesort; the key width is chosen from a sample
-- (8-byte prefixes separate these rows well enough), and memory must be
-- faulted in ahead by a helper thread (prefault.c), or be row blocks that
-- an earlier sort of the session faulted in (blockpool.c).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS gpusort;
RESET client_min_messages;
LOAD 'gpusort';
SET gpusort.min_rows = 0;
SET max_parallel_workers_per_gather = 0;

CREATE TABLE lg (i8 int8, t text COLLATE "C", a int4);
INSERT INTO lg
SELECT hashint8(i), md5(i::text), hashint4(i) % 1000
  FROM generate_series(1, 1000000) i;
ANALYZE lg;

-- md5 of the ordered rows and the engine that sorted them, gpusort on and off
CREATE OR REPLACE FUNCTION large_check(q text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
	d_on text;
	d_off text;
	plan json;
	engine text;
BEGIN
	PERFORM set_config('gpusort.enabled', 'on', true);
	EXECUTE 'EXPLAIN (ANALYZE, BUFFERS OFF, TIMING OFF, SUMMARY OFF, COSTS OFF, FORMAT JSON) ' || q INTO plan;
	engine := plan -> 0 -> 'Plan' ->> 'GpuSort Engine';
	EXECUTE format('SELECT md5(string_agg(r::text, %L)) FROM (%s) r', E'\n', q) INTO d_on;
	PERFORM set_config('gpusort.enabled', 'off', true);
	EXECUTE format('SELECT md5(string_agg(r::text, %L)) FROM (%s) r', E'\n', q) INTO d_off;
	PERFORM set_config('gpusort.enabled', 'on', true);
	RETURN CASE WHEN d_on IS DISTINCT FROM d_off THEN 'DIFFERENT'
				WHEN engine IS NULL THEN 'NO GPUSORT ON TOP'
				WHEN engine = 'tuplesort' THEN 'FELL BACK TO TUPLESORT'
				-- 10^6 rows are enough for prefault.c's thread to start
				WHEN (plan -> 0 -> 'Plan' ->> 'Memory Faulted In Ahead')::int8 = 0 AND
					 (plan -> 0 -> 'Plan' ->> 'Memory Kept From Earlier Sorts') IS NULL
					THEN 'NOTHING FAULTED IN AHEAD'
				ELSE 'ok, key ' || (plan -> 0 -> 'Plan' ->> 'GpuSort Key') END;
END
$f$;

SELECT large_check('SELECT i8 FROM lg ORDER BY i8');
SELECT large_check('SELECT a, t FROM lg ORDER BY a, t DESC');
-- an exact 16-byte key whose values repeat (2000 of a, 511 of f, whose
-- float8 bytes look random): an 8-byte prefix would separate the distinct
-- values but leave every group of equal ones to the comparators
CREATE TABLE lgf AS SELECT a, ((i8 % 256) / 100.0)::float8 AS f FROM lg;
SELECT large_check('SELECT a, f FROM lgf ORDER BY a, f');
DROP TABLE lgf;

-- strings, whose raw keys the node does not keep: the keys are built from
-- the stored rows on threads; values stored compressed, and numerics, are
-- left to the backend's own thread (each task stops at the first one)
SELECT large_check('SELECT t FROM lg ORDER BY t');
SELECT large_check('SELECT t, i8 FROM lg ORDER BY t COLLATE "und-x-icu" DESC, i8');
CREATE TABLE lgz (id int, s text COLLATE "C", n numeric);
INSERT INTO lgz
SELECT i,
	   CASE WHEN i % 1000 = 0 THEN repeat(md5(i::text), 300) ELSE md5(i::text) END,
	   (hashint4(i) % 100000) / 100.0
  FROM generate_series(1, 300000) i;
ANALYZE lgz;
SELECT large_check('SELECT id, length(s) FROM lgz ORDER BY s, id');
SELECT large_check('SELECT id, n FROM lgz ORDER BY n, id');
DROP TABLE lgz;
