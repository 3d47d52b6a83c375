-- Ties settled by their collation on threads (sortcoll.c): rows whose
-- libc or ICU string keys tie in the key's prefix, which the comparators
-- would sort on the backend's thread, are sorted by strcoll_l (or
-- ucol_strcollUTF8) and strcmp on threads, large groups in pieces merged
-- pairwise.  Results equal stock's, whole and in
-- order: long strings sharing a long prefix, strings strcoll calls equal
-- (strcmp decides), character(n) with trailing blanks, compressed values,
-- values longer than a thread's buffers, NULLs, DESC, later columns.
\getenv abs_srcdir PG_ABS_SRCDIR
\set gs_check_sql :abs_srcdir '/test/sort/sql/gs_check.sql'
SET client_min_messages = warning;
DROP DATABASE IF EXISTS gs_coll_en;
RESET client_min_messages;
CREATE DATABASE gs_coll_en TEMPLATE template0 ENCODING 'UTF8' LOCALE 'en_US.UTF-8';
\c gs_coll_en
SET client_min_messages = warning;
CREATE EXTENSION gpusort;
RESET client_min_messages;
LOAD 'gpusort';
SET gpusort.min_rows = 0;
SET gpusort.device = cpu;
SET gpusort.cpu_threads = 4;
SET gpusort.dict_ranks = off;
SET gpusort.refine_ties = off;
SET max_parallel_workers_per_gather = 0;
\set ECHO none
\i :gs_check_sql
\set ECHO all

-- s: 2,000 strings behind a 1 kB prefix (one group of the key, split into
-- pieces), ending in words strcoll calls equal or near ('co-op', 'coop',
-- 'Co-Op', é composed and not), the rest short and in small groups;
-- c: character(12) with trailing blanks; n: a later column with NULLs
CREATE TABLE ct AS SELECT g AS id,
  CASE WHEN g % 10 = 0 THEN repeat('Prefix-Commun Électronique ', 40) ||
         (ARRAY['co-op', 'coop', 'Co-Op', 'é', U&'e\0301', 'E', ''])[1 + g % 7] || (g % 37)
       WHEN g % 10 = 1 THEN NULL
       ELSE 'name-' || (g % 997) || (ARRAY[' a', '-a', 'a', ''''])[1 + g % 4] END AS s,
  ((ARRAY['co-op', 'coop', 'Co-Op', 'é'])[1 + g % 4] || ' ')::character(12) AS c,
  CASE WHEN g % 13 = 0 THEN NULL ELSE (g * 7) % 11 END AS n
FROM generate_series(1, 20000) g;
ANALYZE ct;

-- the lines of the ties and of the threads' part
CREATE FUNCTION collated(q text) RETURNS SETOF text LANGUAGE plpgsql AS $f$
DECLARE
	ln text;
BEGIN
	FOR ln IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		IF ln ~ 'Ties:|Collated:' THEN
			RETURN NEXT regexp_replace(trim(ln), '  Memory: .*', '');
		END IF;
	END LOOP;
END
$f$;

SELECT * FROM collated('SELECT * FROM ct ORDER BY s, n');
SELECT gs_check('SELECT s, n FROM ct ORDER BY s, n');
SELECT gs_check('SELECT s, n, id FROM ct ORDER BY s DESC NULLS LAST, n DESC, id');
SELECT gs_check('SELECT s, id FROM ct ORDER BY s NULLS FIRST, id DESC');
-- character(n): equal without their trailing blanks, the later column decides
SELECT gs_check('SELECT c, n, id FROM ct ORDER BY c, n, id');
-- a string after the string: its rows of one value by the comparators
SELECT gs_check('SELECT s, c, id FROM ct ORDER BY s, c DESC, id');
-- with the refinement first: the groups its bound gives back
SET gpusort.refine_ties = on;
SELECT gs_check('SELECT s, n, id FROM ct ORDER BY s, n, id');
SET gpusort.refine_ties = off;
-- ICU: its collator on threads; under a nondeterministic collation rows
-- it calls equal (here case and accents aside) go to the later column
CREATE COLLATION ct_ci (provider = icu, locale = 'und-u-ks-level1', deterministic = false);
SELECT * FROM collated('SELECT * FROM ct ORDER BY s COLLATE "und-x-icu", n');
SELECT gs_check('SELECT s, n FROM ct ORDER BY s COLLATE "und-x-icu", n');
SELECT gs_check('SELECT s COLLATE "und-x-icu" AS s, n FROM ct ORDER BY 1 DESC, n DESC');
SELECT * FROM collated('SELECT * FROM ct ORDER BY s COLLATE ct_ci, n');
SELECT gs_check('SELECT s COLLATE ct_ci AS s, n FROM ct ORDER BY 1, n');
SELECT gs_check('SELECT c COLLATE ct_ci AS c, n FROM ct ORDER BY 1 DESC, n');
-- on one thread: the comparators, as before
SET gpusort.cpu_threads = 1;
SELECT * FROM collated('SELECT * FROM ct ORDER BY s, n');
SELECT gs_check('SELECT s, n FROM ct ORDER BY s, n');
SET gpusort.cpu_threads = 4;

-- values stored compressed (detoasted by the backend) and longer than a
-- thread's buffer (their groups go to the comparators)
CREATE TABLE cz AS SELECT g AS id,
  CASE WHEN g % 50 = 0 THEN repeat('Zed ', 20000) || (g % 7)
       WHEN g % 5 = 0 THEN repeat('Prefix-Commun ', 300) || (g % 17)
       ELSE 'x' || (g % 300) END AS s,
  g % 3 AS k
FROM generate_series(1, 5000) g;
SELECT count(*) > 0 AS compressed FROM cz WHERE pg_column_compression(s) IS NOT NULL;
SELECT * FROM collated('SELECT * FROM cz ORDER BY s, k');
SELECT gs_check('SELECT md5(s), k, id FROM (SELECT * FROM cz ORDER BY s, k, id OFFSET 0) q');
SELECT gs_check('SELECT length(s), k, id FROM (SELECT * FROM cz ORDER BY s DESC, k DESC, id OFFSET 0) q');

\c contrib_regression
DROP DATABASE gs_coll_en;
