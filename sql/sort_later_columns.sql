-- Later sort columns keyed on threads (sortlater.c): rows whose refined
-- string column holds one value (many duplicates) are ordered by keys of
-- the next columns made and sorted on threads, the comparators only where
-- the keys cannot decide (a numeric longer than its slice, a column past
-- the key, a string).  Results equal stock's, whole and in order, under
-- libc, ICU and C, with NULLs, DESC, NULLS FIRST/LAST, -0, NaN, the
-- infinities, equal intervals of different fields, a compressed numeric.
\getenv abs_srcdir PG_ABS_SRCDIR
\set gs_check_sql :abs_srcdir '/test/sort/sql/gs_check.sql'
SET client_min_messages = warning;
DROP DATABASE IF EXISTS gs_later_en;
RESET client_min_messages;
CREATE DATABASE gs_later_en TEMPLATE template0 ENCODING 'UTF8' LOCALE 'en_US.UTF-8';
\c gs_later_en
SET client_min_messages = warning;
CREATE EXTENSION gpusort;
RESET client_min_messages;
LOAD 'gpusort';
SET gpusort.min_rows = 0;
SET gpusort.device = cpu;
SET gpusort.cpu_threads = 4;
-- (a string of few values keyed by its rank would leave no ties)
SET gpusort.dict_ranks = off;
SET max_parallel_workers_per_gather = 0;
\set ECHO none
\i :gs_check_sql
\set ECHO all

-- (n: numerics of more digits than a key holds, and of the same first
-- digits but fewer, that fit: the one cut short lies past it)
-- s: short strings, each repeated some 50 times, and 1% long ones sharing
-- a long prefix, of few values, which the refinement's cost bound leaves
-- to the comparators' dictionary of values (settle_capped); sl: strings
-- longer than the key; then columns of every kind the later keys encode,
-- with their edge values
CREATE TABLE lc AS SELECT g AS id,
  CASE WHEN g % 100 = 3 THEN repeat('Prefix-Commun Électronique ', 40) ||
         (ARRAY['a', 'B', 'é', '', 'co-op', 'coop'])[1 + g % 6] || (g % 5)
       ELSE substr(md5((g % 211)::text), 1, 1 + g % 3) END AS s,
  CASE g % 17 WHEN 0 THEN 'NaN'::numeric WHEN 1 THEN NULL
    WHEN 2 THEN 'Infinity' WHEN 3 THEN '-Infinity'
    WHEN 4 THEN 1e100 * (g % 5) WHEN 5 THEN -(g % 7)::numeric
    WHEN 6 THEN 123456789012345678901234567890.123 + (g % 4) * 1e-20
    WHEN 7 THEN -123456789012345678901234567890.123 - (g % 4) * 1e-20
    WHEN 8 THEN 0 WHEN 9 THEN 1.50 WHEN 10 THEN 1.5
    WHEN 11 THEN 123456789012340000000000000000
    WHEN 12 THEN -123456789012340000000000000000
    ELSE ((g * 37) % 50 - 25)::numeric / 4 END AS n,
  CASE WHEN g % 23 = 0 THEN NULL ELSE (g * 7) % 5 - 2 END AS i,
  CASE g % 13 WHEN 0 THEN '-0'::float8 WHEN 1 THEN '0' WHEN 2 THEN 'NaN'
    WHEN 3 THEN 'Infinity' WHEN 4 THEN '-Infinity' WHEN 5 THEN NULL
    ELSE (g % 7) - 3.5 END AS f,
  CASE g % 7 WHEN 0 THEN '1 mon'::interval WHEN 1 THEN '30 days'
    WHEN 2 THEN '720 hours' WHEN 3 THEN NULL WHEN 4 THEN '-1 mon 3 days'
    ELSE make_interval(days => g % 40, secs => g % 5) END AS iv,
  CASE g % 19 WHEN 0 THEN NULL WHEN 1 THEN 'infinity'::timestamp
    WHEN 2 THEN '-infinity'
    ELSE '2020-01-01'::timestamp + (g % 9) * interval '1 hour' END AS ts,
  md5((g % 4)::text)::uuid AS u,
  (g % 3 = 0) AS b,
  (ARRAY['b', 'a', 'A', 'é', 'e', ''])[1 + g % 6] AS t,
  'Prefix-Commun-Électronique-grand-public-' ||
    substr(md5((g % 211)::text), 1, 1 + g % 3) AS sl
FROM generate_series(1, 30000) g;
ANALYZE lc;

-- the lines of the ties, the refinement and the later columns
CREATE FUNCTION later(q text) RETURNS SETOF text LANGUAGE plpgsql AS $f$
DECLARE
	ln text;
BEGIN
	FOR ln IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		IF ln ~ 'Refined:|Ties:|Later columns:' THEN
			RETURN NEXT regexp_replace(trim(ln), '  Memory: .*', '');
		END IF;
	END LOOP;
END
$f$;

-- a numeric after the string, under libc, ICU and C
SELECT * FROM later('SELECT * FROM lc ORDER BY s, n');
SELECT gs_check('SELECT s, n FROM lc ORDER BY s, n');
SELECT * FROM later('SELECT * FROM lc ORDER BY s COLLATE "und-x-icu", n');
SELECT gs_check('SELECT s, n FROM lc ORDER BY s COLLATE "und-x-icu", n');
-- (under C a short string fits the key whole: a longer one is refined)
SELECT * FROM later('SELECT * FROM lc ORDER BY sl COLLATE "C", n DESC');
SELECT gs_check('SELECT sl, n FROM lc ORDER BY sl COLLATE "C", n DESC');
SELECT gs_check('SELECT s, n, id FROM lc ORDER BY s, n NULLS FIRST, id');
-- integers and floats, NULLs either end, DESC
SELECT gs_check('SELECT s, i, f FROM lc ORDER BY s, i DESC NULLS LAST, f');
SELECT gs_check('SELECT s, f, id FROM lc ORDER BY s COLLATE "und-x-icu", f DESC, id');
SELECT gs_check('SELECT sl, b, f FROM lc ORDER BY sl COLLATE "C", b, f NULLS FIRST');
-- a string after: the comparators settle the rows of equal keys from it
SELECT * FROM later('SELECT * FROM lc ORDER BY s, f NULLS FIRST, t');
SELECT gs_check('SELECT s, f, t FROM lc ORDER BY s, f NULLS FIRST, t');
SELECT gs_check('SELECT s, n, i, t FROM lc ORDER BY s COLLATE "und-x-icu", n DESC NULLS LAST, i, t');
-- intervals (1 mon = 30 days = 720 hours), timestamps, uuid
SELECT gs_check('SELECT s, iv, ts FROM lc ORDER BY s DESC, iv, ts DESC');
SELECT gs_check('SELECT s, ts, iv FROM lc ORDER BY s COLLATE "und-x-icu", ts NULLS FIRST, iv DESC');
SELECT gs_check('SELECT s, u, i FROM lc ORDER BY s, u, i');
-- more later columns than the key holds: the rest by the comparators
SELECT * FROM later('SELECT * FROM lc ORDER BY s, iv, n, f, ts, i');
SELECT gs_check('SELECT s, iv, n, f, ts, i FROM lc ORDER BY s, iv, n, f, ts, i');
-- on one thread, every group by the comparators as it is found
SET gpusort.cpu_threads = 1;
SELECT * FROM later('SELECT * FROM lc ORDER BY s, n');
SELECT gs_check('SELECT s, n FROM lc ORDER BY s, n');
SET gpusort.cpu_threads = 4;

-- numerics stored compressed, which only the backend's thread reads
CREATE TABLE lt AS SELECT g AS id, substr(md5((g % 50)::text), 1, 2) AS s,
  CASE WHEN g % 10 = 0 THEN (repeat('1234', 1500) || (g % 3))::numeric
       ELSE (g % 7)::numeric END AS big
FROM generate_series(1, 20000) g;
SELECT count(*) FROM lt WHERE pg_column_compression(big) IS NOT NULL;
SELECT * FROM later('SELECT * FROM lt ORDER BY s, big, id');
SELECT gs_check('SELECT s, big, id FROM lt ORDER BY s, big, id');
SELECT gs_check('SELECT s, big FROM lt ORDER BY s COLLATE "und-x-icu", big DESC');

-- one group larger than a thread's qsort takes: the engine sorts it
CREATE TABLE lg AS SELECT g AS id,
  CASE WHEN g <= 70000 THEN 'same' ELSE 'other' END AS s,
  (g * 7919) % 1000 AS k, ((g * 31) % 100)::float8 / 8 AS f
FROM generate_series(1, 70500) g;
SELECT * FROM later('SELECT * FROM lg ORDER BY s, k, f');
SELECT gs_check('SELECT s, k, f FROM lg ORDER BY s, k, f');
SELECT gs_check('SELECT s, k, id FROM lg ORDER BY s COLLATE "und-x-icu", k DESC, id');

-- few of the sort's rows in groups of one value: their entries are made
-- in the groups' order rather than the store's
CREATE TABLE lm AS SELECT g AS id,
  CASE WHEN g % 10 = 0 THEN 'dup' || (g % 100) ELSE md5(g::text) END AS s,
  (g * 7) % 13 - 6 AS k
FROM generate_series(1, 100000) g;
SELECT * FROM later('SELECT * FROM lm ORDER BY s, k DESC');
SELECT gs_check('SELECT s, k FROM lm ORDER BY s, k DESC');

\c contrib_regression
DROP DATABASE gs_later_en;
