-- EXPLAIN of GpuSort: the node's name, Sort Key lines printed as a native
-- Sort prints them (checked against stock), VERBOSE, other formats, and what
-- ANALYZE adds: the engine or the fallback and why, the key layout, rows,
-- ties, memory and times (numbers masked, as they vary).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS gpusort;
RESET client_min_messages;
LOAD 'gpusort';
SET gpusort.min_rows = 0;
SET gpusort.device = cpu;

CREATE TABLE ex (id int, k int, f float8, s text, t text COLLATE "C", n numeric, iv interval);
INSERT INTO ex SELECT i, i % 10, i / 7.0, md5(i::text), md5(i::text), i % 13, i * interval '1 min'
  FROM generate_series(1, 1000) i;
ANALYZE ex;

-- explain_masked(q), shared by the sort tests: test/sort/sql/gs_check.sql
\getenv abs_srcdir PG_ABS_SRCDIR
\set gs_check_sql :abs_srcdir '/test/sort/sql/gs_check.sql'
\set ECHO none
\i :gs_check_sql
\set ECHO all

-- the Sort Key lines of q's plan with GpuSort and with stock Sort
CREATE OR REPLACE FUNCTION sort_keys_match(q text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
	a text[];
	b text[];
BEGIN
	PERFORM set_config('gpusort.enabled', 'on', true);
	EXECUTE format('SELECT array_agg(l) FROM (SELECT trim(l) AS l FROM explain_masked(%L) l) s WHERE l LIKE %L',
				   'EXPLAIN (VERBOSE, COSTS OFF) ' || q, 'Sort Key:%') INTO a;
	PERFORM set_config('gpusort.enabled', 'off', true);
	EXECUTE format('SELECT array_agg(l) FROM (SELECT trim(l) AS l FROM explain_masked(%L) l) s WHERE l LIKE %L',
				   'EXPLAIN (VERBOSE, COSTS OFF) ' || q, 'Sort Key:%') INTO b;
	PERFORM set_config('gpusort.enabled', 'on', true);
	RETURN CASE WHEN a IS NOT DISTINCT FROM b THEN 'same' ELSE 'DIFFERENT' END
		   || ': ' || array_to_string(a, ' | ');
END
$f$;

SELECT sort_keys_match('SELECT * FROM ex ORDER BY k, f DESC');
SELECT sort_keys_match('SELECT * FROM ex ORDER BY s COLLATE "C" DESC NULLS LAST, t NULLS FIRST');
SELECT sort_keys_match('SELECT * FROM ex ORDER BY s COLLATE "en-x-icu", k USING >');
SELECT sort_keys_match('SELECT k + 1, lower(s) FROM ex ORDER BY 1, 2 DESC');
SELECT sort_keys_match('SELECT * FROM ex e1 JOIN ex e2 USING (k) ORDER BY e1.id, e2.n');

-- the node and its input, verbose
EXPLAIN (VERBOSE, COSTS OFF) SELECT id, s FROM ex WHERE k < 3 ORDER BY s DESC;
SELECT * FROM explain_masked('EXPLAIN (COSTS OFF, FORMAT JSON) SELECT k FROM ex ORDER BY k NULLS FIRST');

-- ANALYZE: keys of 8 bytes (exact), a prefix of text, ties settled by the
-- comparator, a bounded sort, an empty one
SELECT * FROM explain_masked('EXPLAIN (ANALYZE, BUFFERS OFF, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM ex ORDER BY k, id');
SELECT * FROM explain_masked('EXPLAIN (ANALYZE, BUFFERS OFF, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM ex ORDER BY t');
SELECT * FROM explain_masked('EXPLAIN (ANALYZE, BUFFERS OFF, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM ex ORDER BY k, s');
SELECT * FROM explain_masked('EXPLAIN (ANALYZE, BUFFERS OFF, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM ex ORDER BY n DESC, t LIMIT 5');
SELECT * FROM explain_masked('EXPLAIN (ANALYZE, BUFFERS OFF, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM ex WHERE false ORDER BY k');
-- with times
SELECT * FROM explain_masked('EXPLAIN (ANALYZE, BUFFERS OFF, COSTS OFF, SUMMARY OFF) SELECT * FROM ex ORDER BY f DESC');
-- other formats carry the same facts
SELECT * FROM explain_masked('EXPLAIN (ANALYZE, BUFFERS OFF, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT YAML) SELECT * FROM ex ORDER BY k, t');
