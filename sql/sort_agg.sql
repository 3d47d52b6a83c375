-- Aggregates that sort, over a GpuSort, against stock PostgreSQL (issue 28):
-- count(DISTINCT x), percentile_cont and percentile_disc (scalar and array
-- fractions), mode(), string_agg and array_agg with ORDER BY, with count(*)
-- and count(x) beside them, computed by
-- the GpuAgg node over one GpuSort by (group columns, the aggregates'
-- column); and the cases that must stay with the Agg.  Each query is
-- compared whole, in order, with gpusort off, with a column that says
-- whether the plan has a Custom Scan (GpuAgg).  NULLs, groups of NULLs only,
-- one-row and huge groups, no rows, NaN, -0 and infinities, numeric of
-- mixed scales, DESC and NULLS FIRST, HAVING, FILTER, several DISTINCT
-- columns, grouping sets, rescans, parallel plans, errors; text in the
-- en_US.UTF-8 and C.UTF-8 collations.
--
-- Results are compared as text (agg_check), so -0 and 0, 1.0 and 1.00 must
-- come back as stock writes them; percentile_disc and mode over values
-- with equal but different-looking peers (-0 and 0, 1.0 and 1.00) return
-- whichever of them the sort put first, in stock as here, so those compare
-- with the columns' equality (agg_check_eq).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS gpusort;
RESET client_min_messages;
LOAD 'gpusort';
SET gpusort.min_rows = 0;
-- a plain Agg gets a Sort put in below it only with the parallel node (on
-- machines of 8 cores and more, or when asked for): here always, as
-- PostgreSQL 16 and later plan that Sort themselves
SET gpusort.parallel = on;
-- gs_check(q), gs_plan_has(q, node): test/sort/sql/gs_check.sql;
-- win_error_of(q): test/sort/sql/window_check.sql; agg_check(q),
-- agg_check_eq(q), agg_error(q): test/sort/sql/agg_check.sql
\getenv abs_srcdir PG_ABS_SRCDIR
\set gs_check_sql :abs_srcdir '/test/sort/sql/gs_check.sql'
\set win_check_sql :abs_srcdir '/test/sort/sql/window_check.sql'
\set agg_check_sql :abs_srcdir '/test/sort/sql/agg_check.sql'
\set agg_body_sql :abs_srcdir '/test/sort/sql/agg_text_body.sql'
\set ECHO none
\i :gs_check_sql
\i :win_check_sql
\i :agg_check_sql
\set ECHO all

CREATE TABLE a (
	id int, g int, x int, i2 int2, i8 int8, f4 float4, f8 float8,
	n numeric, d date, ts timestamp, tz timestamptz);
-- 17 groups and a NULL group; x has ties (0..39); n has mixed scales
-- (1.5, 1.50); i8 has ties
INSERT INTO a
SELECT i,
	   CASE WHEN i % 97 = 0 THEN NULL ELSE i % 17 END,
	   CASE WHEN i % 11 = 0 THEN NULL ELSE abs(hashint4(i) % 40) END,
	   CASE WHEN i % 13 = 0 THEN NULL ELSE (hashint4(i + 1) % 500)::int2 END,
	   CASE WHEN i % 19 = 0 THEN NULL ELSE (hashint8(i) % 300)::int8 * 1000000007 END,
	   CASE WHEN i % 23 = 0 THEN NULL ELSE ((hashint4(i + 2) % 200) / 4.0)::float4 END,
	   CASE WHEN i % 29 = 0 THEN NULL ELSE (hashint4(i + 3) % 100000) / 7.0 END,
	   CASE WHEN i % 31 = 0 THEN NULL ELSE round((hashint4(i + 4) % 300) / 10.0, i % 3) END,
	   CASE WHEN i % 37 = 0 THEN NULL ELSE date '2020-01-01' + hashint4(i + 5) % 400 END,
	   CASE WHEN i % 41 = 0 THEN NULL ELSE timestamp '2020-01-01' + (hashint4(i + 6) % 1000) * interval '1 hour' END,
	   CASE WHEN i % 43 = 0 THEN NULL ELSE timestamptz '2020-01-01 00:00+00' + (hashint4(i + 7) % 1000) * interval '1 hour' END
  FROM generate_series(1, 3000) i;
-- group 100: float edge values (NaN, -0 and 0, infinities); 101: every
-- argument NULL; 102: one row; 103: integers at their limits
INSERT INTO a VALUES
	(3001, 100, 1, 1, 1, 'NaN', 'NaN', 1.0, '-infinity', '-infinity', '-infinity'),
	(3002, 100, 2, 2, 2, '-0', '-0', 1.00, 'infinity', 'infinity', 'infinity'),
	(3003, 100, 2, 3, 3, '0', '0', 1, '2020-01-01', '2020-01-01', '2020-01-01'),
	(3004, 100, 3, 4, 4, 'Infinity', 'Infinity', 2.5, '2020-01-02', '2020-01-02', '2020-01-02'),
	(3005, 100, 3, 5, 5, '-Infinity', '-Infinity', 2.50, '2020-01-03', '2020-01-03', '2020-01-03'),
	(3006, 100, 4, 6, 6, 'NaN', 'NaN', 3, '2020-01-04', '2020-01-04', '2020-01-04'),
	(3007, 101, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
	(3008, 101, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
	(3009, 102, 7, 7, 7, 7, 7, 7, 'epoch', 'epoch', 'epoch'),
	(3010, 103, 2147483647, 32767, 9223372036854775807, 3.4e38, 1.7e308, 1e30, '2020-01-01', '2020-01-01', '2020-01-01'),
	(3011, 103, -2147483648, -32768, -9223372036854775808, -3.4e38, -1.7e308, -1e30, '2020-01-01', '2020-01-01', '2020-01-01'),
	(3012, 103, 0, 0, 9007199254740993, 0, 0, 0, '2020-01-01', '2020-01-01', '2020-01-01');
ANALYZE a;
CREATE TABLE empty (LIKE a);

-- count(DISTINCT x), with and without GROUP BY, every kind of column
SELECT * FROM agg_check('SELECT g, count(DISTINCT x), count(*), count(x) FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT count(DISTINCT x) FROM a');
SELECT * FROM agg_check('SELECT count(DISTINCT x), count(*), count(f8), count(DISTINCT x) + 1 FROM a');
SELECT * FROM agg_check('SELECT g, count(DISTINCT i2) FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, count(DISTINCT i8) FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, count(DISTINCT f4), count(f8) FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, count(DISTINCT f8) FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT count(DISTINCT f8) FROM a');
SELECT * FROM agg_check('SELECT g, count(DISTINCT n) FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT count(DISTINCT n) FROM a');
SELECT * FROM agg_check('SELECT g, count(DISTINCT d) FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, count(DISTINCT ts) FROM a GROUP BY g ORDER BY g DESC');
SELECT * FROM agg_check('SELECT g, count(DISTINCT tz) FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, x % 3, count(DISTINCT i2), count(*) FROM a GROUP BY g, x % 3 ORDER BY 2, 1');
SELECT * FROM agg_check('SELECT x, count(DISTINCT x) FROM a GROUP BY x ORDER BY x');
-- sum(DISTINCT x) and avg(DISTINCT x) of integers (int8 limits included)
SELECT * FROM agg_check('SELECT g, sum(DISTINCT x), avg(DISTINCT x), count(DISTINCT x) FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, sum(DISTINCT i2), avg(DISTINCT i2) FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, sum(DISTINCT i8), avg(DISTINCT i8) FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT sum(DISTINCT i8), avg(DISTINCT i8), count(DISTINCT i8) FROM a');
SELECT * FROM agg_check('SELECT sum(DISTINCT x), avg(DISTINCT x), count(*) FROM a WHERE id < 0');
-- no rows: a plain Agg returns one row, a grouped one none
SELECT * FROM agg_check('SELECT count(DISTINCT x), count(*), count(x) FROM empty');
SELECT * FROM agg_check('SELECT g, count(DISTINCT x) FROM empty GROUP BY g');
SELECT * FROM agg_check('SELECT count(DISTINCT x), g FROM a WHERE id < 0 GROUP BY g');

-- percentile_cont: float8, integers, float4 and numeric cast to float8
SELECT * FROM agg_check('SELECT g, percentile_cont(0.5) WITHIN GROUP (ORDER BY f8) FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, percentile_cont(0.37) WITHIN GROUP (ORDER BY f8), percentile_cont(0) WITHIN GROUP (ORDER BY f8), percentile_cont(1) WITHIN GROUP (ORDER BY f8), percentile_cont(0.999) WITHIN GROUP (ORDER BY f8) FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY f8), percentile_cont(0.3) WITHIN GROUP (ORDER BY f8), count(*) FROM a');
SELECT * FROM agg_check('SELECT g, percentile_cont(0.25) WITHIN GROUP (ORDER BY x), percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, percentile_cont(0.7) WITHIN GROUP (ORDER BY i2) FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, percentile_cont(0.7) WITHIN GROUP (ORDER BY i8) FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, percentile_cont(0.1) WITHIN GROUP (ORDER BY f4) FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, percentile_cont(0.4) WITHIN GROUP (ORDER BY f8 DESC) FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, percentile_cont(0.4) WITHIN GROUP (ORDER BY x DESC NULLS LAST) FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, percentile_cont(0.4) WITHIN GROUP (ORDER BY x NULLS FIRST) FROM a GROUP BY g ORDER BY g');
-- numeric, which the aggregate casts to float8: sorted as numeric (the cast
-- keeps the order), the picked rows' values cast in the backend
SELECT * FROM agg_check('SELECT g, percentile_cont(0.5) WITHIN GROUP (ORDER BY n) FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, percentile_cont(ARRAY[0, 0.3, 0.999, 1]) WITHIN GROUP (ORDER BY n DESC) FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x), percentile_cont(0.75) WITHIN GROUP (ORDER BY x) FROM (VALUES (''NaN''::numeric), (''Infinity''), (1.5), (''-Infinity''), (2), (2.25), (NULL)) v(x)');
-- array fractions: NULLs, repeats, out of order, several dimensions, empty
SELECT * FROM agg_check('SELECT g, percentile_cont(ARRAY[0.5, NULL, 1, 0, 0.5, 0.25]) WITHIN GROUP (ORDER BY f8) FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, percentile_cont(ARRAY[[0.1, 0.9], [0.33, NULL]]) WITHIN GROUP (ORDER BY x) FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT percentile_cont(''{}''::float8[]) WITHIN GROUP (ORDER BY f8), percentile_cont(NULL::float8[]) WITHIN GROUP (ORDER BY f8) FROM a');
SELECT * FROM agg_check('SELECT percentile_cont(ARRAY[0.5]) WITHIN GROUP (ORDER BY f8), percentile_cont(NULL::float8) WITHIN GROUP (ORDER BY f8) FROM empty');

-- percentile_disc: any type; arrays
SELECT * FROM agg_check('SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY x), percentile_disc(0) WITHIN GROUP (ORDER BY x), percentile_disc(1) WITHIN GROUP (ORDER BY x) FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM a');
SELECT * FROM agg_check('SELECT g, percentile_disc(0.31) WITHIN GROUP (ORDER BY i8) FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, percentile_disc(0.31) WITHIN GROUP (ORDER BY d), percentile_disc(0.9) WITHIN GROUP (ORDER BY d) FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, percentile_disc(0.62) WITHIN GROUP (ORDER BY ts) FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, percentile_disc(0.62) WITHIN GROUP (ORDER BY tz) FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check_eq('SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY n) p1, percentile_disc(ARRAY[0.1, 0.8]) WITHIN GROUP (ORDER BY n) p2 FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check_eq('SELECT g, percentile_disc(0.45) WITHIN GROUP (ORDER BY f8) FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, percentile_disc(ARRAY[0.5, NULL, 1, 0, 0.5, 0.25]) WITHIN GROUP (ORDER BY x) FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, percentile_disc(ARRAY[[0.1, 0.9], [0.33, NULL]]) WITHIN GROUP (ORDER BY ts) FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT percentile_disc(''{}''::float8[]) WITHIN GROUP (ORDER BY x), percentile_disc(NULL::float8) WITHIN GROUP (ORDER BY x) FROM a');

-- mode(): the first of the most frequent values
SELECT * FROM agg_check('SELECT g, mode() WITHIN GROUP (ORDER BY x) FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, mode() WITHIN GROUP (ORDER BY x DESC) FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT mode() WITHIN GROUP (ORDER BY x) FROM a');
SELECT * FROM agg_check('SELECT g, mode() WITHIN GROUP (ORDER BY i2), mode() WITHIN GROUP (ORDER BY i2) IS NULL FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, mode() WITHIN GROUP (ORDER BY d) FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check_eq('SELECT g, mode() WITHIN GROUP (ORDER BY f8) m1, mode() WITHIN GROUP (ORDER BY f8) IS NULL m2 FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check_eq('SELECT g, mode() WITHIN GROUP (ORDER BY n) FROM a GROUP BY g ORDER BY g');

-- string_agg(x, delimiter ORDER BY y) and array_agg(x ORDER BY y): every
-- row of the group in order, NULL values skipped by string_agg and kept by
-- array_agg, NULL ORDER BY keys where the order puts them (ORDER BY a
-- unique column, whose order is the same in stock and here)
CREATE TABLE s AS
SELECT i AS id, i % 9 AS g,
	   CASE WHEN i % 7 = 0 THEN NULL ELSE 'v' || i || repeat('é', i % 3) END AS t,
	   CASE WHEN i % 5 = 0 THEN NULL ELSE i % 1000 END AS x,
	   CASE WHEN i < 10 THEN NULL ELSE (i * 7919) % 100003 END AS y,
	   decode(md5(i::text), 'hex') AS by,
	   date '2020-01-01' + i AS d
  FROM generate_series(1, 3000) i;
INSERT INTO s VALUES (3001, 100, NULL, NULL, 1, NULL, NULL), (3002, 101, 'only', 1, 2, '\x00ff', '2020-01-01');
ANALYZE s;
SELECT * FROM agg_check('SELECT g, string_agg(t, '','' ORDER BY y), count(*) FROM s GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, string_agg(t, '' | '' ORDER BY y DESC NULLS LAST), string_agg(t, NULL ORDER BY y DESC NULLS LAST) FROM s GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT string_agg(t, '','' ORDER BY y NULLS FIRST) FROM s');
SELECT * FROM agg_check('SELECT g, string_agg(by, ''\x2c''::bytea ORDER BY id DESC) FROM s GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, array_agg(x ORDER BY y), array_agg(t ORDER BY y), array_agg(d ORDER BY y) FROM s GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT array_agg(x ORDER BY id DESC) FROM s');
SELECT * FROM agg_check('SELECT g, array_agg(id ORDER BY id), string_agg(t, ''-'' ORDER BY id) FROM s GROUP BY g HAVING count(*) < 400 ORDER BY g');
SELECT * FROM agg_check('SELECT string_agg(t, '','' ORDER BY id), array_agg(x ORDER BY id), count(*) FROM s WHERE id < 0');
-- values as the rows hold them (gs_win_boundaries reads each row's Datum
-- on threads, string_agg and array_agg detoast it in the backend):
-- compressed and out-of-line values, one NULL ORDER BY key a group
CREATE TABLE agg_vals (id int, g int, tc text, te text, y int);
ALTER TABLE agg_vals ALTER te SET STORAGE EXTERNAL;
INSERT INTO agg_vals
SELECT i, i % 4,
	   CASE WHEN i % 5 = 0 THEN NULL WHEN i % 2 = 0 THEN repeat(md5(i::text), 200) ELSE 'c' || i END,
	   CASE WHEN i % 6 = 0 THEN NULL WHEN i % 3 = 0 THEN 'e' || i ELSE repeat(md5((i + 1)::text), 100) END,
	   CASE WHEN i BETWEEN 7 AND 10 THEN NULL ELSE (i * 37) % 211 END
  FROM generate_series(1, 200) i;
ANALYZE agg_vals;
SELECT * FROM agg_check('SELECT g, md5(string_agg(tc, '','' ORDER BY y DESC)), length(string_agg(te, '','' ORDER BY y DESC)), md5(string_agg(te, NULL ORDER BY y DESC)) FROM agg_vals GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, md5(array_agg(tc ORDER BY y NULLS FIRST)::text), md5(array_agg(te ORDER BY y NULLS FIRST)::text), array_agg(id ORDER BY y NULLS FIRST) FROM agg_vals GROUP BY g ORDER BY g');
-- string_agg over many rows (the passes on threads from 32768): a huge
-- group, groups of one row, of NULLs only, with a compressed value, a
-- NULL ORDER BY key (one a group: peers' order is the sort's own)
CREATE TABLE agg_many AS
SELECT i AS id,
	   CASE WHEN i <= 40000 THEN 0 WHEN i > 59990 THEN i ELSE i % 5 + 1 END AS g,
	   CASE WHEN i % 13 = 0 OR i % 5 = 4 THEN NULL
			WHEN i % 5 = 2 AND i % 101 = 0 THEN repeat(md5(i::text), 200)
			ELSE 'v' || i END AS t,
	   CASE WHEN i IN (17, 40003, 40004) THEN NULL ELSE (i * 7919) % 60013 END AS y
  FROM generate_series(1, 60000) i;
ANALYZE agg_many;
SELECT * FROM agg_check('SELECT g, md5(string_agg(t, '', '' ORDER BY y)), length(string_agg(t, '', '' ORDER BY y)), count(*) FROM agg_many GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, string_agg(t, NULL ORDER BY y DESC) FROM agg_many WHERE g > 59990 OR g = 5 GROUP BY g ORDER BY g');
-- the rows read where the sort stored them, as when the memory does not
-- allow the copy into output order
SET gpusort.copy_rows = off;
SELECT * FROM agg_check('SELECT g, string_agg(t, '','' ORDER BY y), count(*) FROM s GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, md5(string_agg(te, '','' ORDER BY y)), md5(array_agg(tc ORDER BY y)::text) FROM agg_vals GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, count(DISTINCT x), percentile_cont(0.5) WITHIN GROUP (ORDER BY x), mode() WITHIN GROUP (ORDER BY x), count(*) FROM a GROUP BY g ORDER BY g');
RESET gpusort.copy_rows;
-- rescans: a correlated subquery, a subquery under a nested loop; a cursor
SELECT * FROM agg_check('SELECT o.g, (SELECT string_agg(t, '','' ORDER BY y) FROM s WHERE s.g = o.g), (SELECT array_agg(x ORDER BY y) FROM s WHERE s.g = o.g AND s.id < 100) FROM (VALUES (1), (5), (100), (101), (7), (1)) o(g)');
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
SELECT * FROM agg_check('SELECT o.i, s2.* FROM generate_series(1, 3) o(i), (SELECT g, string_agg(t, '','' ORDER BY y) v, array_agg(x ORDER BY y) w FROM s GROUP BY g) s2 WHERE s2.g % 3 = o.i - 1 ORDER BY 1, 2');
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;
BEGIN;
DECLARE c_on CURSOR FOR SELECT g, md5(string_agg(t, ',' ORDER BY y)), array_agg(x ORDER BY y) IS NULL FROM s GROUP BY g ORDER BY g;
FETCH 3 FROM c_on;
FETCH 2 FROM c_on;
SET LOCAL gpusort.enabled = off;
DECLARE c_off CURSOR FOR SELECT g, md5(string_agg(t, ',' ORDER BY y)), array_agg(x ORDER BY y) IS NULL FROM s GROUP BY g ORDER BY g;
FETCH 3 FROM c_off;
FETCH 2 FROM c_off;
COMMIT;
-- kept by the Agg (results compared all the same): FILTER, DISTINCT
SELECT * FROM agg_check('SELECT g, string_agg(t, '','' ORDER BY y) FILTER (WHERE id > 100), array_agg(x ORDER BY y) FILTER (WHERE x > 500) FROM s GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, string_agg(DISTINCT t, '','' ORDER BY t) FROM s GROUP BY g ORDER BY g');
-- kept by the Agg: two ORDER BY columns, a delimiter per row, an
-- expression, DISTINCT
SELECT * FROM agg_check('SELECT g, string_agg(t, '','' ORDER BY x, id) FROM s GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, string_agg(t, t ORDER BY id) FROM s GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, array_agg(x + 1 ORDER BY id) FROM s GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, array_agg(DISTINCT x) FROM s GROUP BY g ORDER BY g');

-- several aggregates of one column; HAVING; expressions over aggregates
SELECT * FROM agg_check('SELECT g, count(DISTINCT x), percentile_cont(0.5) WITHIN GROUP (ORDER BY x), percentile_disc(0.5) WITHIN GROUP (ORDER BY x), mode() WITHIN GROUP (ORDER BY x), count(*), count(f8) FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, count(DISTINCT x) FROM a GROUP BY g HAVING count(DISTINCT x) > 38 ORDER BY g');
SELECT * FROM agg_check('SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY x) * 2 + count(*) FROM a GROUP BY g HAVING count(*) > 1 AND percentile_disc(0.5) WITHIN GROUP (ORDER BY x) > 18 ORDER BY g');
SELECT * FROM agg_check('SELECT count(DISTINCT x) FROM a HAVING count(DISTINCT x) > 1000');
SELECT * FROM agg_check('SELECT g, count(DISTINCT x) FROM a GROUP BY g HAVING g > (SELECT min(g) + 3 FROM a) ORDER BY g');

-- EXPLAIN: the node's lines, and VERBOSE's deparsing of its aggregates
SELECT agg_explain_has('SELECT g, count(DISTINCT x), percentile_cont(0.5) WITHIN GROUP (ORDER BY x), mode() WITHIN GROUP (ORDER BY x) FROM a GROUP BY g HAVING count(*) > 1',
					   'Aggregates: count(DISTINCT), percentile_cont, mode, count(*)') AS aggregates_line,
	   agg_explain_has('SELECT g, count(DISTINCT x) FROM a GROUP BY g', 'Groups: 22') AS groups_line;
SELECT count(*) > 0 AS explained
  FROM explain_masked('EXPLAIN (ANALYZE, VERBOSE, BUFFERS OFF, COSTS OFF) SELECT g, count(DISTINCT x), percentile_cont(ARRAY[0.5]) WITHIN GROUP (ORDER BY x), count(*) FROM a GROUP BY g HAVING count(*) > 1');
SELECT count(*) > 0 AS explained
  FROM explain_masked('EXPLAIN (VERBOSE, COSTS OFF) SELECT g, string_agg(t, '','' ORDER BY y), array_agg(x ORDER BY y), sum(DISTINCT y) IS NULL FROM s GROUP BY g');

-- what stays with the Agg (gpuagg false): FILTER, several sorted columns,
-- an expression argument, other aggregates, grouping sets, mode of an expression
SELECT * FROM agg_check('SELECT g, count(DISTINCT x) FILTER (WHERE id > 100) FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, count(DISTINCT x), count(DISTINCT i2) FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, count(DISTINCT x), percentile_cont(0.5) WITHIN GROUP (ORDER BY f8) FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, count(DISTINCT x), percentile_disc(0.5) WITHIN GROUP (ORDER BY x DESC) FROM a GROUP BY g ORDER BY g');
-- (PostgreSQL 16 and later compute x / 2 below a presorted Agg, which
-- GpuAgg then takes; 15 keeps the stock Agg: only the result is shown)
SELECT result FROM agg_check('SELECT g, count(DISTINCT x / 2) FROM a GROUP BY g ORDER BY g');
-- (sum of a column beside them: GpuAgg adds it on threads, see sort_agg_threads)
SELECT * FROM agg_check('SELECT g, count(DISTINCT x), sum(x) FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, x % 2, count(DISTINCT i2) FROM a GROUP BY GROUPING SETS ((g), (x % 2), ()) ORDER BY 1, 2, 3');
-- (an expression again: 16 and later take it below a presorted Agg)
SELECT result FROM agg_check('SELECT g, mode() WITHIN GROUP (ORDER BY d::text) FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, percentile_cont(0.5 + g / 1000.0) WITHIN GROUP (ORDER BY x) FROM a GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, percentile_cont(random() * 0) WITHIN GROUP (ORDER BY x) FROM a GROUP BY g ORDER BY g');
SET gpusort.aggregates = off;
SELECT * FROM agg_check('SELECT g, count(DISTINCT x) FROM a GROUP BY g ORDER BY g');
RESET gpusort.aggregates;

-- a Sort that stays stock's (fewer rows than gpusort.min_rows) gets its
-- keys back, a Sort put in below a plain Agg goes, and the Agg stays
SET gpusort.min_rows = 100000000;
SELECT gs_plan_has('SELECT g, count(DISTINCT x) FROM a GROUP BY g', 'GpuAgg') AS grouped,
	   gs_plan_has('SELECT count(DISTINCT x) FROM a', 'GpuAgg') AS plain,
	   gs_plan_has('SELECT count(DISTINCT x) FROM a', 'GpuSort') AS plain_sort;
CREATE TEMP TABLE r_on AS
SELECT g, count(DISTINCT x) c, percentile_cont(0.5) WITHIN GROUP (ORDER BY x) p,
	   (SELECT count(DISTINCT i2) FROM a) d
  FROM a GROUP BY g;
SET gpusort.enabled = off;
CREATE TEMP TABLE r_off AS
SELECT g, count(DISTINCT x) c, percentile_cont(0.5) WITHIN GROUP (ORDER BY x) p,
	   (SELECT count(DISTINCT i2) FROM a) d
  FROM a GROUP BY g;
RESET gpusort.enabled;
SELECT count(*) AS rows, (SELECT count(*) FROM (TABLE r_on EXCEPT ALL TABLE r_off) x) AS differ FROM r_on;
DROP TABLE r_on, r_off;
SET gpusort.min_rows = 0;

-- errors: a fraction outside [0, 1], raised as the final function raises
-- it (the scalar forms even over no rows, the array forms only for a
-- group with values)
SELECT * FROM agg_error('SELECT g, percentile_cont(1.5) WITHIN GROUP (ORDER BY f8) FROM a GROUP BY g');
SELECT * FROM agg_error('SELECT percentile_disc(-0.1) WITHIN GROUP (ORDER BY x) FROM a');
SELECT * FROM agg_error('SELECT percentile_disc(''NaN'') WITHIN GROUP (ORDER BY x) FROM a');
SELECT * FROM agg_error('SELECT percentile_cont(2) WITHIN GROUP (ORDER BY x) FROM empty');
SELECT * FROM agg_error('SELECT g, percentile_cont(2) WITHIN GROUP (ORDER BY x) FROM empty GROUP BY g');
SELECT * FROM agg_error('SELECT percentile_cont(ARRAY[0.5, 3]) WITHIN GROUP (ORDER BY x) FROM a');
SELECT * FROM agg_error('SELECT percentile_cont(ARRAY[0.5, 3]) WITHIN GROUP (ORDER BY x) FROM empty');
SELECT * FROM agg_error('SELECT g, percentile_disc(ARRAY[-1, 0.5]) WITHIN GROUP (ORDER BY x) FROM a WHERE g BETWEEN 101 AND 101 GROUP BY g');
SELECT * FROM agg_error('SELECT g, percentile_disc(ARRAY[-1, 0.5]) WITHIN GROUP (ORDER BY x) FROM a WHERE g BETWEEN 102 AND 102 GROUP BY g');

-- rescans: a correlated subquery (its fraction a parameter, too), a
-- subquery run again under a nested loop
SELECT * FROM agg_check('SELECT o.g, (SELECT count(DISTINCT x) FROM a WHERE a.g = o.g), (SELECT percentile_cont(o.p) WITHIN GROUP (ORDER BY f8) FROM a WHERE a.g = o.g) FROM (VALUES (1, 0.1), (5, 0.5), (101, 0.5), (100, 0.9), (7, 1.0)) o(g, p)');
SELECT * FROM agg_check('SELECT o.p, (SELECT percentile_disc(o.p) WITHIN GROUP (ORDER BY x) FROM a) FROM (VALUES (0.1), (0.5), (0.5), (1.0), (NULL)) o(p)');
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
SELECT * FROM agg_check('SELECT o.i, s.* FROM generate_series(1, 3) o(i), (SELECT g, count(DISTINCT x) c, mode() WITHIN GROUP (ORDER BY x) m FROM a GROUP BY g) s WHERE s.g % 3 = o.i - 1 ORDER BY 1, 2');
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;

-- huge groups: one of 100000 rows, a plain aggregate over 120000
CREATE TABLE b AS
SELECT i, CASE WHEN i <= 100000 THEN 0 ELSE i % 3 + 1 END AS g,
	   CASE WHEN i % 101 = 0 THEN NULL ELSE abs(hashint4(i) % 50000) END AS x,
	   ((hashint4(i + 1) % 1000000) / 3.0)::float8 AS f
  FROM generate_series(1, 120000) i;
ANALYZE b;
SELECT * FROM agg_check('SELECT g, count(DISTINCT x), count(*), count(x), percentile_disc(0.5) WITHIN GROUP (ORDER BY x), mode() WITHIN GROUP (ORDER BY x) FROM b GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT count(DISTINCT x) FROM b');
SELECT * FROM agg_check('SELECT percentile_cont(ARRAY[0.01, 0.5, 0.99]) WITHIN GROUP (ORDER BY f), percentile_cont(0.5) WITHIN GROUP (ORDER BY f) FROM b');
SELECT * FROM agg_check('SELECT g, md5(array_agg(x ORDER BY i)::text), cardinality(array_agg(x ORDER BY i)) FROM b GROUP BY g ORDER BY g');

-- parallel plans under the GpuSort, with the parallel node and without
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET gpusort.parallel = on;
SELECT * FROM agg_check('SELECT count(DISTINCT x) FROM b');
SELECT * FROM agg_check('SELECT g, count(DISTINCT x), percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM b GROUP BY g ORDER BY g');
SET gpusort.parallel = off;
SELECT * FROM agg_check('SELECT g, count(DISTINCT x), percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM b GROUP BY g ORDER BY g');
SET gpusort.parallel = on;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- the fallback: a sort the planner thought small goes to tuplesort at
-- run time, and hands its rows to the Agg
CREATE FUNCTION b_rows() RETURNS SETOF b LANGUAGE plpgsql ROWS 100 AS
$$ BEGIN RETURN QUERY SELECT * FROM b; END $$;
SET gpusort.max_memory = '1MB';
SELECT * FROM agg_check('SELECT g, count(DISTINCT x), percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM b_rows() GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT count(DISTINCT x), percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM b_rows()');
SELECT agg_explain_has('SELECT count(DISTINCT x) FROM b_rows()', 'GpuAgg Fallback: the sort''s rows are not in memory');
RESET gpusort.max_memory;
SELECT agg_explain_has('SELECT count(DISTINCT x) FROM b_rows()', 'Groups: 1');

-- a plain Agg whose rows are estimated past gpusort.max_memory gets no Sort
-- put in below it: the GpuSort would write runs to temp files and GpuAgg
-- fall back over them, on top of the Agg's own sorts
SET gpusort.max_memory = '1MB';
SELECT gs_plan_has('SELECT mode() WITHIN GROUP (ORDER BY x) FROM b', 'GpuAgg') AS gpuagg_past_budget,
	   gs_plan_has('SELECT mode() WITHIN GROUP (ORDER BY x) FROM b', 'GpuSort') AS gpusort_past_budget;
RESET gpusort.max_memory;
SELECT gs_plan_has('SELECT mode() WITHIN GROUP (ORDER BY x) FROM b', 'GpuAgg') AS gpuagg_within_budget;

-- a plain Agg's DISTINCT aggregates of one integer column, where no Sort
-- is put in below it (no parallel node, no GPU): a GpuAgg over the
-- column's bare values (aggvalues.c), every integer type, NULLs, the
-- integers' limits, no rows, HAVING, rescans; the rest keeps the Agg
-- (gpusort.device = cpu: a machine without a GPU, also on the GPU tests')
SET gpusort.parallel = off;
SET gpusort.device = cpu;
SELECT * FROM agg_check('SELECT count(DISTINCT x), count(*), count(x) FROM a');
SELECT * FROM agg_check('SELECT sum(DISTINCT x), avg(DISTINCT x), count(DISTINCT x) + 1 FROM a');
SELECT * FROM agg_check('SELECT count(DISTINCT i2), sum(DISTINCT i2), avg(DISTINCT i2), count(i2) FROM a');
SELECT * FROM agg_check('SELECT count(DISTINCT i8), sum(DISTINCT i8), avg(DISTINCT i8) FROM a');
SELECT * FROM agg_check('SELECT count(DISTINCT i8) FROM a WHERE g = 103');
SELECT * FROM agg_check('SELECT sum(DISTINCT i8), avg(DISTINCT i8) FROM a WHERE g = 103');
SELECT * FROM agg_check('SELECT count(DISTINCT d), count(d) FROM a');
SELECT * FROM agg_check('SELECT count(DISTINCT ts) FROM a');
SELECT * FROM agg_check('SELECT count(DISTINCT tz), count(*) FROM a');
SELECT * FROM agg_check('SELECT count(DISTINCT x), sum(DISTINCT x), count(*) FROM a WHERE g = 101');
SELECT * FROM agg_check('SELECT count(DISTINCT x), sum(DISTINCT x), avg(DISTINCT x), count(*), count(x) FROM empty');
SELECT * FROM agg_check('SELECT count(DISTINCT x) FROM a HAVING count(DISTINCT x) > 1000');
SELECT * FROM agg_check('SELECT count(DISTINCT x) FROM a HAVING count(*) > 1000');
SELECT * FROM agg_check('SELECT o.g, (SELECT count(DISTINCT x) FROM a WHERE a.g = o.g), (SELECT sum(DISTINCT i8) FROM a WHERE a.g <= o.g) FROM (VALUES (1), (5), (101), (103), (7)) o(g)');
SELECT * FROM agg_check('SELECT count(DISTINCT x) FROM b');
-- values of a small range (negative ones too) are counted in a bitmap of
-- it, others sorted
SELECT * FROM agg_check('SELECT count(DISTINCT x), sum(DISTINCT x), avg(DISTINCT x) FROM a WHERE g < 100');
SELECT * FROM agg_check('SELECT count(DISTINCT i2), sum(DISTINCT i2), avg(DISTINCT i2), count(*) FROM a WHERE g < 100');
SELECT * FROM agg_check('SELECT sum(DISTINCT x), avg(DISTINCT x), count(DISTINCT x), count(x) FROM b');
SELECT agg_explain_has('SELECT count(DISTINCT i2) FROM a WHERE g < 100', 'Values Counted By: bitmap') AS small_range,
	   agg_explain_has('SELECT count(DISTINCT x) FROM a', 'Values Counted By: bitmap') AS int4_limits,
	   agg_explain_has('SELECT count(DISTINCT i8) FROM a WHERE g < 100', 'Values Counted By: bitmap') AS sparse;
-- not over values: another column read, a float, numeric, FILTER (the
-- Agg, or from 16 on a GpuAgg over the Sort PostgreSQL plans below it)
SELECT q, agg_explain_has(q, 'Values Counted By') AS over_values
  FROM (VALUES ('SELECT count(DISTINCT x), count(f8) FROM a'),
			   ('SELECT count(DISTINCT f8) FROM a'),
			   ('SELECT count(DISTINCT n) FROM a'),
			   ('SELECT count(DISTINCT x) FILTER (WHERE g > 3) FROM a')) v(q);
SELECT agg_explain_has('SELECT count(DISTINCT x) FROM b', 'Distinct Values: ' ||
		(SELECT count(*) FROM (SELECT x FROM b WHERE x IS NOT NULL GROUP BY x) s)) AS distinct_values,
	   agg_explain_has('SELECT count(DISTINCT x) FROM b', 'Values: ' ||
		(SELECT count(x) FROM b)) AS values_line;
-- the values outgrow gpusort.max_memory: those sorted so far and the rest
-- go to a tuplesort (after 65536 values at 3MB, from the first at 1MB)
SET gpusort.max_memory = '3MB';
SELECT * FROM agg_check('SELECT count(DISTINCT x), sum(DISTINCT x), avg(DISTINCT x), count(*), count(x) FROM b');
SELECT agg_explain_has('SELECT count(DISTINCT x) FROM b', 'GpuAgg Fallback: the values need more than gpusort.max_memory');
SET gpusort.max_memory = '1MB';
SELECT * FROM agg_check('SELECT count(DISTINCT x), sum(DISTINCT x), avg(DISTINCT x), count(*), count(x) FROM b');
RESET gpusort.max_memory;
RESET gpusort.device;
SET gpusort.parallel = on;

-- text: count(DISTINCT) and percentile_disc in the database's collation,
-- en_US.UTF-8 and C.UTF-8 (equal under strcoll, different bytes: counted
-- apart, as texteq compares bytes in a deterministic collation)
SET client_min_messages = warning;
DROP DATABASE IF EXISTS gs_agg_en;
DROP DATABASE IF EXISTS gs_agg_cu;
RESET client_min_messages;
CREATE DATABASE gs_agg_en TEMPLATE template0 ENCODING 'UTF8' LOCALE 'en_US.UTF-8';
CREATE DATABASE gs_agg_cu TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C.UTF-8';
\c gs_agg_en
\i :agg_body_sql
\c gs_agg_cu
\i :agg_body_sql
\c contrib_regression
DROP DATABASE gs_agg_en;
DROP DATABASE gs_agg_cu;
