-- GpuWindow and GpuSort rescanned with changed and unchanged parameters
-- (issue 24), against stock, whole results in order: a window inside a
-- correlated subquery or a LATERAL join whose FILTER, argument, frame
-- offset, run condition or LIMIT reads the outer row must be computed
-- again for every outer row, even though the sorted rows below it stay the
-- same.  Then frame offsets at and near the int8 limit, and a cancel that
-- must stop a long window computation on time.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS gpusort;
RESET client_min_messages;
LOAD 'gpusort';
SET gpusort.min_rows = 0;
\getenv abs_srcdir PG_ABS_SRCDIR
\set gs_check_sql :abs_srcdir '/test/sort/sql/gs_check.sql'
\set win_check_sql :abs_srcdir '/test/sort/sql/window_check.sql'
\set ECHO none
\i :gs_check_sql
\i :win_check_sql
\set ECHO all

CREATE TABLE rw AS
SELECT g AS id, (hashint4(g) % 1000) AS v, (g % 7)::int8 AS k,
	   (hashint4(g + 7) % 500)::float8 AS f, g % 5 AS p
  FROM generate_series(1, 2000) g;
ANALYZE rw;
CREATE TABLE outer_rows AS SELECT g AS id, (hashint4(g) % 1000) AS v, g % 4 AS n FROM generate_series(1, 12) g;
ANALYZE outer_rows;

-- the issue's repro: a FILTER over an outer column
SELECT * FROM win_check($$
SELECT b.id, (SELECT max(x) FROM (SELECT count(*) FILTER (WHERE a.v < b.v) OVER (ORDER BY a.id) AS x
                                   FROM rw a) s) AS m
  FROM outer_rows b ORDER BY b.id$$);
SELECT gs_plan_has($$SELECT b.id, (SELECT max(x) FROM (SELECT count(*) FILTER (WHERE a.v < b.v) OVER (ORDER BY a.id) AS x FROM rw a) s) AS m FROM outer_rows b ORDER BY b.id$$, 'GpuWindow') AS inner_gpuwindow;
-- min and sum with FILTERs over outer columns, an OR, and OVER ()
SELECT * FROM win_check($$
SELECT b.id, (SELECT sum(x) FROM (SELECT min(a.f) FILTER (WHERE a.v >= b.v) OVER (PARTITION BY a.p ORDER BY a.id) AS x
                                   FROM rw a) s) AS m
  FROM outer_rows b ORDER BY b.id$$);
SELECT * FROM win_check($$
SELECT b.id, (SELECT sum(x) FROM (SELECT sum(a.k) FILTER (WHERE a.v < b.v OR a.k = b.n) OVER (ORDER BY a.id ROWS BETWEEN 3 PRECEDING AND CURRENT ROW) AS x
                                   FROM rw a) s) AS m
  FROM outer_rows b ORDER BY b.id$$);
SELECT * FROM win_check($$
SELECT b.id, (SELECT max(x) FROM (SELECT count(a.f) FILTER (WHERE a.v > b.v) OVER () AS x FROM rw a) s) AS m
  FROM outer_rows b ORDER BY b.id$$);
-- an argument and a frame offset that read the outer row
SELECT * FROM win_check($$
SELECT b.id, (SELECT sum(x) FROM (SELECT sum(a.k * b.n) OVER (ORDER BY a.id) AS x FROM rw a) s) AS m
  FROM outer_rows b ORDER BY b.id$$);
SELECT * FROM win_check($$
SELECT b.id, (SELECT sum(x) FROM (SELECT sum(a.k) OVER (ORDER BY a.id ROWS BETWEEN b.n PRECEDING AND CURRENT ROW) AS x
                                   FROM rw a) s) AS m
  FROM outer_rows b ORDER BY b.id$$);
-- the qual and a run condition over the outer row, in a LATERAL join
SELECT * FROM win_check($$
SELECT b.id, s.* FROM outer_rows b,
       LATERAL (SELECT count(*) AS c, sum(rn) AS srn
                  FROM (SELECT row_number() OVER (PARTITION BY a.p ORDER BY a.id) AS rn FROM rw a) x
                 WHERE rn <= b.n) s
 ORDER BY b.id$$);
SELECT * FROM win_check($$
SELECT b.id, s.* FROM outer_rows b,
       LATERAL (SELECT a.id AS aid, rank() OVER (ORDER BY a.v, a.id) AS r,
                       count(*) FILTER (WHERE a.k < b.n) OVER (ORDER BY a.v, a.id) AS c
                  FROM rw a WHERE a.p = b.n LIMIT 5) s
 ORDER BY b.id, s.aid$$);
-- a LIMIT that depends on the outer row, over a window and over a sort
SELECT * FROM win_check($$
SELECT b.id, s.* FROM outer_rows b,
       LATERAL (SELECT a.id AS aid, sum(a.k) OVER (ORDER BY a.id) AS s FROM rw a ORDER BY a.id LIMIT b.n + 1) s
 ORDER BY b.id, s.aid$$);
SELECT * FROM win_check($$
SELECT b.id, s.* FROM outer_rows b,
       LATERAL (SELECT a.id AS aid FROM rw a ORDER BY a.v, a.id LIMIT b.n OFFSET b.id) s
 ORDER BY b.id, s.aid$$);

-- unchanged parameters: the inner side rescanned by a nested loop with
-- nothing of the outer row in it, whose values may be reused
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
SELECT * FROM win_check($$
SELECT b.id, s.aid, s.c FROM outer_rows b,
       (SELECT a.id AS aid, count(*) FILTER (WHERE a.v < 500) OVER (ORDER BY a.id) AS c FROM rw a) s
 WHERE s.aid = b.id * 3 ORDER BY b.id$$);
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;

-- the same with the parallel node on and off
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET gpusort.parallel = on;
SELECT * FROM win_check($$
SELECT b.id, (SELECT max(x) FROM (SELECT count(*) FILTER (WHERE a.v < b.v) OVER (PARTITION BY a.p ORDER BY a.id) AS x
                                   FROM rw a) s) AS m
  FROM outer_rows b ORDER BY b.id$$);
SET gpusort.parallel = off;
SELECT * FROM win_check($$
SELECT b.id, (SELECT max(x) FROM (SELECT count(*) FILTER (WHERE a.v < b.v) OVER (PARTITION BY a.p ORDER BY a.id) AS x
                                   FROM rw a) s) AS m
  FROM outer_rows b ORDER BY b.id$$);
RESET gpusort.parallel;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- frame offsets at and near the int8 limit: the frame's width overflows
-- int8, and such a frame is as wide as any partition
SELECT * FROM win_check($$SELECT id, min(f) OVER (ORDER BY id ROWS BETWEEN 9223372036854775807 PRECEDING AND 1 FOLLOWING) FROM rw$$);
SELECT * FROM win_check($$SELECT id, max(f) OVER (ORDER BY id ROWS BETWEEN 9223372036854775806 PRECEDING AND 9223372036854775807 FOLLOWING) FROM rw$$);
SELECT * FROM win_check($$SELECT id, sum(k) OVER (ORDER BY id ROWS BETWEEN 9223372036854775807 PRECEDING AND 9223372036854775807 FOLLOWING) FROM rw$$);
SELECT * FROM win_check($$SELECT id, count(*) OVER (PARTITION BY p ORDER BY id ROWS BETWEEN 9223372036854775807 FOLLOWING AND 9223372036854775807 FOLLOWING) FROM rw$$);
SELECT * FROM win_check($$SELECT id, sum(f) OVER (PARTITION BY p ORDER BY id ROWS BETWEEN 1 PRECEDING AND 9223372036854775807 FOLLOWING) FROM rw$$);
SELECT * FROM win_check($$SELECT id, sum(k) OVER (ORDER BY id ROWS BETWEEN 2 FOLLOWING AND 9223372036854775807 FOLLOWING) FROM rw$$);
SELECT * FROM win_check($$SELECT id, max(f) OVER (ORDER BY id ROWS BETWEEN 1023 PRECEDING AND CURRENT ROW) FROM rw$$);
SELECT * FROM win_check($$SELECT id, max(f) OVER (ORDER BY id ROWS BETWEEN 1024 PRECEDING AND CURRENT ROW) FROM rw$$);
SELECT * FROM win_check($$SELECT id, lag(f, 2147483647) OVER (ORDER BY id), lead(f, 2147483647) OVER (ORDER BY id) FROM rw$$);

-- a cancel during a long window computation fires on time: one partition
-- of 10^6 rows, a float sum restarted over 1001 rows at every row (seconds of
-- work on the threads), stopped within 0.8 s of its 1 s timeout, where
-- before the threads ran to their end first.  The DO block catches the
-- cancel, so a machine that finishes first passes too.
CREATE TABLE rwbig AS SELECT g AS id, (g % 9973)::float8 AS f FROM generate_series(1, 1000000) g;
ANALYZE rwbig;
SELECT gs_plan_has($$SELECT sum(m) FROM (SELECT sum(f) OVER (ORDER BY id ROWS BETWEEN 1000 PRECEDING AND CURRENT ROW) m FROM rwbig) s$$, 'GpuWindow') AS gpuwindow;
SELECT clock_timestamp() AS t0 \gset
SET statement_timeout = '1s';
DO $$BEGIN
	PERFORM sum(m) FROM (SELECT sum(f) OVER (ORDER BY id ROWS BETWEEN 1000 PRECEDING AND CURRENT ROW) m FROM rwbig) s;
EXCEPTION WHEN query_canceled THEN NULL;
END$$;
RESET statement_timeout;
SELECT clock_timestamp() - :'t0'::timestamptz < interval '1.8 s' AS on_time;
-- the same over a few partitions, on every thread
SELECT clock_timestamp() AS t0 \gset
SET statement_timeout = '1s';
DO $$BEGIN
	PERFORM sum(m) FROM (SELECT sum(f) OVER (PARTITION BY id % 4 ORDER BY id ROWS BETWEEN 1000 PRECEDING AND CURRENT ROW) m FROM rwbig) s;
EXCEPTION WHEN query_canceled THEN NULL;
END$$;
RESET statement_timeout;
SELECT clock_timestamp() - :'t0'::timestamptz < interval '1.8 s' AS on_time;
