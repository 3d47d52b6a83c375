-- The refinement's cost bound (sortrefine.c): ties on a string's key prefix
-- are ordered by the next bytes of its transform only while that costs no
-- more than the comparators would.  1% of the rows here are 1 kB strings
-- that share all but their last few characters: transforming them round
-- after round (284 rounds of 32 bytes) cost 35 times stock's whole sort.
-- Each collation's transform is bounded; results equal stock's, in order.
\getenv abs_srcdir PG_ABS_SRCDIR
\set gs_check_sql :abs_srcdir '/test/sort/sql/gs_check.sql'
SET client_min_messages = warning;
DROP DATABASE IF EXISTS gs_refine_en;
RESET client_min_messages;
CREATE DATABASE gs_refine_en TEMPLATE template0 ENCODING 'UTF8' LOCALE 'en_US.UTF-8';
\c gs_refine_en
SET client_min_messages = warning;
CREATE EXTENSION gpusort;
RESET client_min_messages;
LOAD 'gpusort';
SET gpusort.min_rows = 0;
SET max_parallel_workers_per_gather = 0;
\set ECHO none
\i :gs_check_sql
\set ECHO all

CREATE TABLE lp AS SELECT g AS id,
  CASE WHEN g % 100 = 3 THEN repeat('Prefix-Commun Électronique ', 40) ||
         (ARRAY['a','B','é','','co-op','coop'])[1 + g % 6] || (g % 50)
       ELSE substr(md5(g::text), 1, 1 + g % 6) END AS s,
  (g % 1000)::numeric AS n,
  make_interval(days => g % 30, secs => g % 7) AS iv
FROM generate_series(1, 30000) g;
-- long strings that differ right after their first 20 characters, which
-- strcoll compares in fewer steps than strxfrm transforms them, and short
-- ones that share 13, which refinement settles
CREATE TABLE sp AS SELECT g AS id,
  'Rue de la Paix n° ' || hashint4(g) || repeat(' bâtiment B, escalier C', 30) AS longs,
  'Marie-Claire ' || chr(65 + g % 26) || hashint4(g) % 100000 AS short
FROM generate_series(1, 30000) g;
ANALYZE lp, sp;

-- the refinement's lines, with its rounds
CREATE FUNCTION refined(q text) RETURNS SETOF text LANGUAGE plpgsql AS $f$
DECLARE
	ln text;
BEGIN
	FOR ln IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		IF ln ~ 'Refined:|Ties:' THEN
			RETURN NEXT regexp_replace(trim(ln), '  Memory: .*', '');
		END IF;
	END LOOP;
END
$f$;

SELECT * FROM refined('SELECT * FROM lp ORDER BY s, n');
SELECT gs_check('SELECT s, n FROM lp ORDER BY s, n');
SELECT * FROM refined('SELECT * FROM lp ORDER BY s COLLATE "tr-TR-x-icu", n');
SELECT gs_check('SELECT s, n FROM lp ORDER BY s COLLATE "tr-TR-x-icu", n');
SELECT * FROM refined('SELECT * FROM lp ORDER BY s COLLATE "C", n');
SELECT gs_check('SELECT s, n FROM lp ORDER BY s COLLATE "C", n');
SELECT gs_check('SELECT s, iv FROM lp ORDER BY s DESC, iv');
SET enable_hashagg = off;
SELECT gs_check('SELECT DISTINCT s, n FROM lp');
RESET enable_hashagg;
SELECT * FROM refined('SELECT * FROM sp ORDER BY longs, id');
SELECT gs_check('SELECT longs, id FROM sp ORDER BY longs, id');
SELECT * FROM refined('SELECT * FROM sp ORDER BY short, id');
SELECT gs_check('SELECT short, id FROM sp ORDER BY short, id');

\c contrib_regression
DROP DATABASE gs_refine_en;
