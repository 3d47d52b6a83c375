-- Grouping on threads (issue 41): a sorted GROUP BY whose aggregates do
-- not sort (count, sum, avg, min, max, float variances) becomes a GpuAgg
-- over the GpuSort's rows, each group's aggregates computed on threads with
-- GpuWindow's aggregate steps (src/sort/window/wingroups.c).  Each query is
-- compared whole, in order, as text, with gpusort off (agg_check), with a
-- column that says whether the plan has a GpuAgg.  Integers at their
-- limits, numerics of mixed scales with NaN and infinities, floats with
-- NaN, -0 and infinities, dates and timestamps, NULL groups and groups of
-- NULLs, HAVING, top-N over the groups, no rows, expressions as arguments;
-- what must stay with the Agg (variance of integers, float sums beside an
-- aggregate that sorts); the fallbacks (a numeric past 128 bits, a float
-- overflow, whose error must be stock's).
--
-- Float sums round by the order of their inputs: the values here are
-- multiples of 1/64 small enough to add exactly in any order, and the float
-- variances (whose divisions round) are compared rounded.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS gpusort;
RESET client_min_messages;
LOAD 'gpusort';
SET gpusort.min_rows = 0;
-- the planner's sorted grouping: GroupAggregate over a Sort (a GpuSort)
SET enable_hashagg = off;
\getenv abs_srcdir PG_ABS_SRCDIR
\set gs_check_sql :abs_srcdir '/test/sort/sql/gs_check.sql'
\set win_check_sql :abs_srcdir '/test/sort/sql/window_check.sql'
\set agg_check_sql :abs_srcdir '/test/sort/sql/agg_check.sql'
\set ECHO none
\i :gs_check_sql
\i :win_check_sql
\i :agg_check_sql
\set ECHO all

CREATE TABLE gt (
	id int, g int, i2 int2, i4 int4, i8 int8, n numeric, f4 float4,
	f8 float8, d date, ts timestamp, tz timestamptz);
-- 300 groups and a NULL group; every column NULL now and then
INSERT INTO gt
SELECT i,
	   CASE WHEN i % 101 = 0 THEN NULL ELSE hashint4(i) & 255 END,
	   CASE WHEN i % 7 = 0 THEN NULL ELSE (hashint4(i + 1) % 30000)::int2 END,
	   CASE WHEN i % 11 = 0 THEN NULL ELSE hashint4(i + 2) END,
	   CASE WHEN i % 13 = 0 THEN NULL ELSE hashint8(i) END,
	   CASE WHEN i % 17 = 0 THEN NULL ELSE round((hashint4(i + 3) % 1000000) / 100.0, i % 4) END,
	   CASE WHEN i % 19 = 0 THEN NULL ELSE (hashint4(i + 4) % 4096) / 64.0 END,
	   CASE WHEN i % 23 = 0 THEN NULL ELSE (hashint4(i + 5) % 65536) / 64.0 END,
	   CASE WHEN i % 29 = 0 THEN NULL ELSE date '2020-01-01' + hashint4(i + 6) % 3000 END,
	   CASE WHEN i % 31 = 0 THEN NULL ELSE timestamp '2020-01-01' + (hashint4(i + 7) % 100000) * interval '1 minute' END,
	   CASE WHEN i % 37 = 0 THEN NULL ELSE timestamptz '2020-01-01 00:00+00' + (hashint4(i + 8) % 100000) * interval '1 minute' END
  FROM generate_series(1, 60000) i;
-- group 1000: numeric NaN and infinities, float NaN, -0 and infinities,
-- integers at their limits; 1001: every argument NULL; 1002: one row
INSERT INTO gt VALUES
	(60001, 1000, 32767, 2147483647, 9223372036854775807, 'NaN', 'NaN', 'NaN', 'infinity', 'infinity', 'infinity'),
	(60002, 1000, -32768, -2147483648, -9223372036854775808, 'Infinity', '-0', '-0', '-infinity', '-infinity', '-infinity'),
	(60003, 1000, 32767, 2147483647, 9223372036854775807, '-Infinity', 'Infinity', 'Infinity', '2020-01-01', '2020-01-01', '2020-01-01'),
	(60004, 1000, 1, 1, 1, 1.5, '-Infinity', '-Infinity', '2020-01-02', '2020-01-02', '2020-01-02'),
	(60005, 1001, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
	(60006, 1001, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
	(60007, 1002, 7, 7, 7, 7.25, 7, 7, 'epoch', 'epoch', 'epoch');
ANALYZE gt;

-- integers: count, sum, avg, min, max (int8 sums past 64 bits in group 1000)
SELECT * FROM agg_check('SELECT g, count(*), count(i4), sum(i2), sum(i4), sum(i8), avg(i2), avg(i4), avg(i8), min(i2), max(i4), min(i8), max(i8) FROM gt GROUP BY g ORDER BY g');
-- numerics of mixed scales, NaN and infinities
SELECT * FROM agg_check('SELECT g, sum(n), avg(n), min(n), max(n), count(n) FROM gt GROUP BY g ORDER BY g');
-- floats: exact sums; NaN, -0 and infinities in group 1000
SELECT * FROM agg_check('SELECT g, sum(f8), avg(f8), min(f8), max(f8), sum(f4), avg(f4), min(f4), max(f4) FROM gt GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, round(var_samp(f8)::numeric, 6), round(stddev_pop(f8)::numeric, 6), round(variance(f4)::numeric, 6), round(stddev(f4)::numeric, 6) FROM gt WHERE g < 1000 GROUP BY g ORDER BY g');
-- dates and timestamps
SELECT * FROM agg_check('SELECT g, min(d), max(d), min(ts), max(ts), min(tz), max(tz) FROM gt GROUP BY g ORDER BY g');
-- two group columns, one of them text; HAVING; the groups' top 5 by a sum
SELECT * FROM agg_check('SELECT g % 7 AS a, (g % 3)::text AS b, sum(i8), avg(n), max(ts) FROM gt GROUP BY 1, 2 ORDER BY 1, 2');
SELECT * FROM agg_check('SELECT g, sum(i4), count(*) FROM gt GROUP BY g HAVING sum(i4) > 0 AND max(f8) < 1000 ORDER BY g');
SELECT * FROM agg_check('SELECT g, sum(n) FROM gt WHERE g < 1000 GROUP BY g ORDER BY 2 DESC, 1 LIMIT 5');
SELECT * FROM agg_check('SELECT g, sum(n) * 2 + count(*), coalesce(max(i2), -1) FROM gt GROUP BY g ORDER BY g');
-- no rows
SELECT * FROM agg_check('SELECT g, sum(i4), avg(n) FROM gt WHERE id < 0 GROUP BY g ORDER BY g');
-- the plan says what it computes
SELECT agg_explain_has('SELECT g, sum(i4), avg(n), min(ts), max(f8), count(*) FROM gt GROUP BY g',
					   'Aggregates: sum, avg, min, max, count(*)') AS aggregates_line;

-- beside an aggregate that sorts: the Sort takes its column too; float sums
-- would then be added in another order than the Agg's, so those stay
SELECT * FROM agg_check('SELECT g, count(DISTINCT i2), sum(i8), avg(n), percentile_disc(0.5) WITHIN GROUP (ORDER BY i2) FROM gt GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, count(DISTINCT i2), sum(f8) FROM gt GROUP BY g ORDER BY g');

-- expressions as arguments: integer and numeric arithmetic on threads (as
-- TPC-H's sum(l_extendedprice * (1 - l_discount))), the rest, and the rows
-- a program leaves, in the backend, in the Agg's order: its first error is
-- stock's
SELECT * FROM agg_check('SELECT g, sum(i2 + 1), avg(i8 - i4), sum(n * (1 - i2 / 100.0)), max(n * 2), sum(f8 * 2 + f4) FROM gt GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, sum(n * 1e30 * 1e10), min(d + 1), max(ts + interval ''1 day'') FROM gt GROUP BY g ORDER BY g');
SELECT * FROM agg_error('SELECT g, sum(i2 + 1), sum(i4 + 2147483647) FROM gt GROUP BY g ORDER BY g');
SELECT * FROM agg_error('SELECT g, sum(i8 * 100) FROM gt GROUP BY g ORDER BY g');
-- left to the Agg: variance of integers
SELECT * FROM agg_check('SELECT g, stddev(i4) FROM gt GROUP BY g ORDER BY g');
-- a plain Agg whose aggregates do not sort: stock's (parallel) aggregation
SELECT * FROM agg_check('SELECT sum(i4), avg(n) FROM gt');

-- fallbacks: a numeric sum past 128 bits (the Agg computes it), a float
-- overflow (the Agg raises stock's error)
CREATE TABLE gt_wide AS
SELECT i % 10 AS g, CASE WHEN i = 5 THEN 1e40 ELSE i END::numeric AS n,
	   CASE WHEN i % 10 = 3 THEN 1e308 ELSE i END::float8 AS f
  FROM generate_series(1, 1000) i;
ANALYZE gt_wide;
SELECT * FROM agg_check('SELECT g, sum(n), avg(n) FROM gt_wide GROUP BY g ORDER BY g');
SELECT agg_explain_has('SELECT g, sum(n) FROM gt_wide GROUP BY g', 'GpuAgg Fallback: numeric values past 128 bits') AS wide_fallback;
SELECT * FROM agg_error('SELECT g, sum(f) FROM gt_wide GROUP BY g ORDER BY g');

RESET enable_hashagg;
