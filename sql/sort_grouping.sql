-- Sorted grouping for many groups (gpusort.sorted_grouping, issue 28's
-- top-N over GROUP BY): where GROUP BY is estimated at 100000 groups or
-- more, and at least 1% of its input, the planner's HashAggregate paths
-- give way to its GroupAggregate over a GpuSort.  Each query is compared
-- whole, in order, as text, with gpusort off (whose plan hashes), with a
-- column that says how the gpusort plan groups: sorted (a GroupAggregate,
-- no HashAggregate) or hashed.  NULL groups, NULL values, groups of NULLs
-- only, numeric of mixed scales, NaN and infinities, int8 sums past int8,
-- no rows (estimated many), HAVING, FILTER, LIMIT with ties, rescans,
-- serial and parallel plans with the parallel node and without, and the
-- cases that keep the hash: few groups, text under en_US.UTF-8, the
-- setting off, gpusort off, fewer rows than gpusort.min_rows.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS gpusort;
RESET client_min_messages;
LOAD 'gpusort';
-- gs_check(q): test/sort/sql/gs_check.sql
\getenv abs_srcdir PG_ABS_SRCDIR
\set gs_check_sql :abs_srcdir '/test/sort/sql/gs_check.sql'
\set win_check_sql :abs_srcdir '/test/sort/sql/window_check.sql'
\set ECHO none
\i :gs_check_sql
\i :win_check_sql
\set ECHO all

-- grp_plan(q): how q's plan groups: hashed (a HashAggregate anywhere),
-- sorted (GroupAggregates, or GpuAggs over the sorted rows), and whether
-- in parallel (a Gather)
-- grp_check(q): q against stock, compared as text (1.0 and 1.00 must come
-- back as stock writes them); grp_plan of q under gpusort and of stock
CREATE FUNCTION grp_plan(q text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
	ln text;
	hashed boolean := false;
	sorted boolean := false;
	parallel boolean := false;
BEGIN
	FOR ln IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		hashed := hashed OR strpos(ln, 'HashAggregate') > 0;
		sorted := sorted OR strpos(ln, 'GroupAggregate') > 0 OR strpos(ln, 'GpuAgg') > 0;
		parallel := parallel OR strpos(ln, 'Gather') > 0;
	END LOOP;
	RETURN CASE WHEN hashed THEN 'hashed' WHEN sorted THEN 'sorted' ELSE 'neither' END ||
		CASE WHEN parallel THEN ', parallel' ELSE '' END;
END
$f$;
CREATE FUNCTION gs_plan_lines(q text) RETURNS SETOF text LANGUAGE plpgsql AS $f$
BEGIN
	RETURN QUERY EXECUTE 'EXPLAIN (COSTS OFF) ' || q;
END
$f$;
CREATE FUNCTION grp_check(q text, OUT result text, OUT gpusort_plan text,
						  OUT stock_plan text) LANGUAGE plpgsql AS $f$
BEGIN
	result := gs_check(format('SELECT gs_r::text AS gs_r FROM (%s) gs_r', q));
	PERFORM set_config('gpusort.enabled', 'on', true);
	gpusort_plan := grp_plan(q);
	PERFORM set_config('gpusort.enabled', 'off', true);
	stock_plan := grp_plan(q);
	PERFORM set_config('gpusort.enabled', 'on', true);
END
$f$;

-- 300000 rows in about 175000 groups of g (and a NULL group); n numeric
-- of mixed scales, f8 quarters (their sums are exact in any order)
CREATE TABLE gr (id int, g int8, n numeric, i4 int, i8 int8, f8 float8, t text);
INSERT INTO gr
SELECT i,
	   CASE WHEN i % 1009 = 0 THEN NULL ELSE (hashint4(i) & 2147483647) % 250000 END,
	   CASE WHEN i % 31 = 0 THEN NULL ELSE round((hashint4(i + 1) % 100000) / 100.0, i % 4) END,
	   CASE WHEN i % 37 = 0 THEN NULL ELSE hashint4(i + 2) % 1000 END,
	   CASE WHEN i % 41 = 0 THEN NULL ELSE (hashint4(i + 3) % 1000)::int8 END,
	   CASE WHEN i % 43 = 0 THEN NULL ELSE (hashint4(i + 4) % 4000) / 4.0 END,
	   md5(((hashint4(i) & 2147483647) % 250000)::text)
  FROM generate_series(1, 300000) i;
-- groups -1..-4: numeric NaN and infinities; -5: every value NULL; -6:
-- int8 values whose sum passes int8; -7: one row
INSERT INTO gr VALUES
	(300001, -1, 'NaN', 1, 1, 1, 'x'), (300002, -1, 1.5, 2, 2, 2, 'x'),
	(300003, -2, 'Infinity', 1, 1, 1, 'x'), (300004, -2, 2.25, 1, 1, 1, 'x'),
	(300005, -3, '-Infinity', 1, 1, 1, 'x'), (300006, -3, 'Infinity', 1, 1, 1, 'x'),
	(300007, -4, '-Infinity', 1, 1, 1, 'x'), (300008, -4, 1.000, 1, 1, 1, 'x'),
	(300009, -5, NULL, NULL, NULL, NULL, NULL), (300010, -5, NULL, NULL, NULL, NULL, NULL),
	(300011, -6, 1, 2147483647, 9223372036854775807, 1, 'x'),
	(300012, -6, 1, 2147483647, 9223372036854775807, 1, 'x'),
	(300013, -6, 1, 2147483647, 9223372036854775000, 1, 'x'),
	(300014, -7, 0.001, -5, -9223372036854775808, -0.25, 'y');
ANALYZE gr;
-- estimated as gr, holding no row (autovacuum would analyze it anew, at a
-- time the test cannot tell)
CREATE TABLE gr_empty WITH (autovacuum_enabled = off) AS SELECT * FROM gr;
ANALYZE gr_empty;
DELETE FROM gr_empty;

-- the tuned setting: a hash table of 10^5 groups in memory (at the default
-- 4MB the planner prices it as spilling, and sorts)
SET work_mem = '256MB';
SET max_parallel_workers_per_gather = 0;
-- the issue's shape: top-N over the groups' sums; and every group, in order
SELECT * FROM grp_check('SELECT g, sum(n) FROM gr GROUP BY g ORDER BY 2 DESC NULLS LAST, 1 LIMIT 10');
SELECT * FROM grp_check('SELECT g, sum(n), count(*), count(n), avg(n), min(n), max(n) FROM gr GROUP BY g ORDER BY 3, 1');
SELECT * FROM grp_check('SELECT g, sum(i4), sum(i8), avg(i4), avg(i8), min(i8), max(i4) FROM gr GROUP BY g ORDER BY 3 NULLS FIRST, 1');
SELECT * FROM grp_check('SELECT g, sum(f8), avg(f8), min(f8), max(f8), count(f8) FROM gr GROUP BY g ORDER BY 2 NULLS FIRST, 1');
-- the edge groups alone, picked by a HAVING of aggregates (one on the
-- group column would go below the grouping, into the scan)
SELECT * FROM grp_check('SELECT g, sum(n), avg(n), sum(i4), sum(i8), avg(i8), max(n), min(f8) FROM gr GROUP BY g HAVING max(id) > 300000 OR count(g) = 0 ORDER BY g');
-- text keys, and two group columns
SELECT * FROM grp_check('SELECT t, sum(n), count(*) FROM gr GROUP BY t ORDER BY 2 DESC NULLS LAST, 1 LIMIT 10');
SELECT * FROM grp_check('SELECT g, i4 % 2, sum(n) FROM gr GROUP BY g, i4 % 2 ORDER BY 3 DESC NULLS LAST, 1, 2 LIMIT 10');
-- HAVING, FILTER
SELECT * FROM grp_check('SELECT g, sum(n), count(*) FROM gr GROUP BY g HAVING count(*) > 3 ORDER BY 2 DESC NULLS LAST, 1');
SELECT * FROM grp_check('SELECT g, sum(n) FILTER (WHERE i4 > 0), count(*) FILTER (WHERE f8 < 500) FROM gr GROUP BY g ORDER BY 2 DESC NULLS LAST, 1 LIMIT 20');
-- LIMIT with ties: every group tied at the cut, whichever the plan meets first
SELECT * FROM grp_check('SELECT * FROM (SELECT g, count(*) FROM gr GROUP BY g ORDER BY 2 DESC FETCH FIRST 3 ROWS WITH TIES) s ORDER BY 1');
-- no rows, estimated many
SELECT * FROM grp_check('SELECT g, sum(n) FROM gr_empty GROUP BY g ORDER BY 2 DESC, 1 LIMIT 10');
-- rescans: the HAVING reads the outer row's value
SELECT * FROM grp_check('SELECT x, (SELECT count(*) FROM (SELECT g FROM gr GROUP BY g HAVING sum(i4) > x) s) FROM generate_series(1000, 3000, 1000) x ORDER BY x');

-- parallel plans, with the parallel node and without (stock hashes in one
-- process: its workers would each make almost every group)
SET parallel_tuple_cost = 0.01;
SET max_parallel_workers_per_gather = 2;
SET gpusort.parallel = on;
SELECT * FROM grp_check('SELECT g, sum(n) FROM gr GROUP BY g ORDER BY 2 DESC NULLS LAST, 1 LIMIT 10');
SELECT * FROM grp_check('SELECT g, sum(n), count(*), avg(i8), max(f8) FROM gr GROUP BY g ORDER BY 3, 1');
SET gpusort.parallel = off;
SELECT * FROM grp_check('SELECT g, sum(n) FROM gr GROUP BY g ORDER BY 2 DESC NULLS LAST, 1 LIMIT 10');
SELECT * FROM grp_check('SELECT g, sum(n), count(*), avg(i8), max(f8) FROM gr GROUP BY g ORDER BY 3, 1');
RESET gpusort.parallel;
-- about one row a group (150000 rows, 149000 groups): one step, a
-- GroupAggregate over every row, not partial groups combined by a Finalize
-- (stock: "two steps" with its Finalize HashAggregate, or "hashed")
CREATE TABLE gu AS
SELECT (i::int8 * 7919) % 149000 AS g, round((i % 10007) / 100.0, i % 3) AS n
  FROM generate_series(1, 150000) i;
ANALYZE gu;
SET max_parallel_workers_per_gather = 1;
SET min_parallel_table_scan_size = 0;
SET gpusort.parallel = off;	-- auto takes the parallel node on 8 cores or more
SELECT q, CASE WHEN EXISTS (SELECT FROM gs_plan_lines(q) l WHERE l LIKE '%Finalize%')
		  THEN 'two steps' ELSE 'one step' END AS steps
  FROM (VALUES ('SELECT g, sum(n) FROM gu GROUP BY g ORDER BY 2 DESC, 1 LIMIT 10'),
			   ('SELECT g, sum(n), count(*) FROM gu GROUP BY g HAVING sum(n) > 90 ORDER BY 2 DESC, 1')) v(q);
SELECT * FROM grp_check('SELECT g, sum(n) FROM gu GROUP BY g ORDER BY 2 DESC, 1 LIMIT 10');
SELECT * FROM grp_check('SELECT g, sum(n), count(*) FROM gu GROUP BY g HAVING sum(n) > 90 ORDER BY 2 DESC, 1');
RESET min_parallel_table_scan_size;
RESET gpusort.parallel;
DROP TABLE gu;
RESET parallel_tuple_cost;
SET max_parallel_workers_per_gather = 0;

-- few groups keep the hash
SELECT * FROM grp_check('SELECT i4, sum(n) FROM gr GROUP BY i4 ORDER BY 2 DESC NULLS LAST, 1 LIMIT 10');
-- so does a GROUP BY without aggregates
SELECT * FROM grp_check('SELECT count(*) FROM (SELECT g FROM gr GROUP BY g) s');
-- and text under a collation's transform (strxfrm costs more than hashing)
SELECT * FROM grp_check('SELECT t COLLATE "en_US.utf8", sum(n), count(*) FROM gr GROUP BY 1 ORDER BY 2 DESC NULLS LAST, 1 LIMIT 10');
-- and a Sort that would not be a GpuSort: fewer rows than gpusort.min_rows
SET gpusort.min_rows = 1000000;
SELECT grp_plan('SELECT g, sum(n) FROM gr GROUP BY g ORDER BY 2 DESC NULLS LAST, 1 LIMIT 10');
RESET gpusort.min_rows;
-- the setting off, and gpusort off
SET gpusort.sorted_grouping = off;
SELECT grp_plan('SELECT g, sum(n) FROM gr GROUP BY g ORDER BY 2 DESC NULLS LAST, 1 LIMIT 10');
RESET gpusort.sorted_grouping;
SET gpusort.enabled = off;
SELECT grp_plan('SELECT g, sum(n) FROM gr GROUP BY g ORDER BY 2 DESC NULLS LAST, 1 LIMIT 10');
RESET gpusort.enabled;
SELECT grp_plan('SELECT g, sum(n) FROM gr GROUP BY g ORDER BY 2 DESC NULLS LAST, 1 LIMIT 10');
RESET max_parallel_workers_per_gather;
RESET work_mem;

DROP TABLE gr, gr_empty;
DROP FUNCTION grp_check(text), grp_plan(text), gs_plan_lines(text);
