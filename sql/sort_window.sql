-- Window functions over a GpuSort, against stock PostgreSQL: every function
-- and frame the GpuWindow node computes (issue 19) and the cases that must
-- stay with WindowAgg, each compared whole, in order, with gpusort off, and
-- with a column that says whether the plan has a Custom Scan (GpuWindow).
-- Peers, NULLs, DESC and NULLS FIRST, empty, single-row, tiny and huge
-- partitions, keys of every sortable kind, run conditions, cursors,
-- rescans, joins and GROUP BY below, a cancel, errors (float overflow,
-- ntile and nth_value arguments) compared by SQLSTATE and message.
--
-- Results are compared as text (win_check wraps q as gs_w::text), so 1.0
-- and 1.00, -0 and 0 must come back as stock writes them.  Where a window's
-- ORDER BY has peers, the query shows only columns that peers share (the
-- keys and the window values) and sorts its output by all of them, since
-- the order of peers is the sort's to choose; elsewhere the window orders
-- by a unique column last.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS gpusort;
RESET client_min_messages;
LOAD 'gpusort';
SET gpusort.min_rows = 0;
-- gs_check(q), gs_plan_has(q, node), gs_cursor_check(q): test/sort/sql/gs_check.sql;
-- win_check(q) (gs_check of q's rows as text, and whether the plan has
-- GpuWindow), win_error(q) (the error of q with GpuSort on and off):
-- test/sort/sql/window_check.sql
\getenv abs_srcdir PG_ABS_SRCDIR
\set gs_check_sql :abs_srcdir '/test/sort/sql/gs_check.sql'
\set win_check_sql :abs_srcdir '/test/sort/sql/window_check.sql'
\set ECHO none
\i :gs_check_sql
\i :win_check_sql
\set ECHO all

CREATE TABLE w (
	id int, g int, gt text, k int, k2 int2, k8 int8, f4 float4, f8 float8,
	n numeric, t text, bp char(6), d date, ts timestamp, tz timestamptz);
-- 23 partitions and NULLs; k has ties (0..49); float4 values are exact
-- (sums do not depend on the order of peers), float8 ones are not
INSERT INTO w
SELECT i,
	   CASE WHEN i % 53 = 0 THEN NULL ELSE i % 23 END,
	   CASE WHEN i % 47 = 0 THEN NULL
			ELSE (ARRAY['a', 'B', 'b', 'é', 'e', 'E', 'ä', 'z', 'Z', '', 'a b', 'ab'])[1 + i % 12] END,
	   CASE WHEN i % 31 = 0 THEN NULL ELSE abs(hashint4(i) % 50) END,
	   CASE WHEN i % 29 = 0 THEN NULL ELSE (hashint4(i + 1) % 1000)::int2 END,
	   CASE WHEN i % 37 = 0 THEN NULL ELSE hashint8(i) % 1000000000000 END,
	   CASE WHEN i % 43 = 0 THEN NULL ELSE ((hashint4(i + 2) % 2000) / 8.0)::float4 END,
	   CASE WHEN i % 41 = 0 THEN NULL ELSE (hashint4(i + 3) % 100000) / 7.0 END,
	   CASE WHEN i % 59 = 0 THEN NULL ELSE round((hashint4(i + 4) % 10000) / 100.0, i % 4) END,
	   CASE WHEN i % 61 = 0 THEN NULL
			WHEN i % 3 = 0 THEN md5(i::text)
			ELSE (ARRAY['x', 'X', 'é', 'e', 'shared-prefix-shared-prefix-shared-prefix-' || i % 5, ''])[1 + i % 6] END,
	   CASE WHEN i % 67 = 0 THEN NULL ELSE (ARRAY['a', 'a ', 'ab', 'A', '', 'b  '])[1 + i % 6] END,
	   CASE WHEN i % 71 = 0 THEN NULL ELSE date '2020-01-01' + hashint4(i + 5) % 1000 END,
	   CASE WHEN i % 73 = 0 THEN NULL ELSE timestamp '2020-01-01' + (hashint4(i + 6) % 100000) * interval '1 minute' END,
	   CASE WHEN i % 79 = 0 THEN NULL ELSE timestamptz '2020-01-01 00:00+00' + (hashint4(i + 7) % 100000) * interval '1 minute' END
  FROM generate_series(1, 2000) i;
-- partition 100: the edge values of the keys; 101: every argument NULL;
-- 102: one row; 103: integers at their limits
INSERT INTO w VALUES
	(3001, 100, 'a', 1, 1, 1, 'NaN', 'NaN', 1.0, 'a', 'a', '-infinity', '-infinity', '-infinity'),
	(3002, 100, 'a', 1, 1, 1, '-0', '-0', 1.00, 'a ', 'a ', 'infinity', 'infinity', 'infinity'),
	(3003, 100, 'b', 2, 2, 2, '0', '0', 1.000, '', '', '2000-01-01', '2000-01-01', '2000-01-01 00:00+00'),
	(3004, 100, 'b', 2, 2, 2, 'Infinity', 'Infinity', -0.0, 'A', 'A', '2000-01-01', '2000-01-01', '2000-01-01 00:00+00'),
	(3005, 100, NULL, NULL, NULL, NULL, '-Infinity', '1e-300', 'NaN', NULL, NULL, NULL, NULL, NULL),
	(3006, 100, 'c', 3, 3, 3, '1e-45', '-1e-300', 1e-20, 'b', 'b', '4713-01-01 BC', '4713-01-01 BC', '4713-01-01 00:00+00 BC'),
	(3011, 101, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
	(3012, 101, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
	(3013, 101, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
	(3021, 102, 'z', 7, 7, 7, 7, 7, 7, 'z', 'z', '2021-01-01', '2021-01-01', '2021-01-01 00:00+00'),
	(3031, 103, 'a', 2147483647, 32767, 9223372036854775807, 3e38, 1e300, 1, 'a', 'a', '2020-01-01', '2020-01-01', '2020-01-01 00:00+00'),
	(3032, 103, 'a', 2147483647, 32767, 9223372036854775807, -3e38, 1e300, 2, 'a', 'a', '2020-01-01', '2020-01-01', '2020-01-01 00:00+00'),
	(3033, 103, 'a', 2147483646, 32766, 9223372036854775806, -3e38, -1e300, 3, 'a', 'a', '2020-01-01', '2020-01-01', '2020-01-01 00:00+00'),
	(3034, 103, 'a', -2147483648, -32768, -9223372036854775808, 1, 1, 4, 'a', 'a', '2020-01-01', '2020-01-01', '2020-01-01 00:00+00'),
	(3035, 103, 'a', 1, 1, 1, 1, 1, 5, 'a', 'a', '2020-01-01', '2020-01-01', '2020-01-01 00:00+00');
CREATE TABLE e (LIKE w);
ANALYZE w, e;

-- the ranking functions, each alone (the node takes a window whose every
-- function it computes) and all together over one window
SELECT * FROM win_check($$SELECT id, row_number() OVER (PARTITION BY g ORDER BY k, id) FROM w$$);
SELECT * FROM win_check($$SELECT id, rank() OVER (PARTITION BY g ORDER BY k, id) FROM w$$);
SELECT * FROM win_check($$SELECT id, dense_rank() OVER (PARTITION BY g ORDER BY k, id) FROM w$$);
SELECT * FROM win_check($$SELECT id, percent_rank() OVER (PARTITION BY g ORDER BY k, id) FROM w$$);
SELECT * FROM win_check($$SELECT id, cume_dist() OVER (PARTITION BY g ORDER BY k, id) FROM w$$);
SELECT * FROM win_check($$SELECT id, ntile(4) OVER (PARTITION BY g ORDER BY k, id) FROM w$$);
SELECT * FROM win_check($$SELECT id, ntile(1) OVER (PARTITION BY g ORDER BY k, id), ntile(1000) OVER (PARTITION BY g ORDER BY k, id) FROM w$$);
SELECT * FROM win_check($$SELECT id, row_number() OVER w, rank() OVER w, dense_rank() OVER w, percent_rank() OVER w, cume_dist() OVER w, ntile(7) OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY k, id)$$);
-- over peers: rank and its kin, row_number and ntile (position only)
SELECT * FROM win_check($$SELECT g, k, rank() OVER w, dense_rank() OVER w, percent_rank() OVER w, cume_dist() OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY k) ORDER BY 1, 2, 3$$);
SELECT * FROM win_check($$SELECT g, k, row_number() OVER w AS rn, ntile(3) OVER w AS nt FROM w WINDOW w AS (PARTITION BY g ORDER BY k) ORDER BY 1, 2, 3, 4$$);
-- no PARTITION BY, no ORDER BY (every row a peer)
SELECT * FROM win_check($$SELECT k, rank() OVER (ORDER BY k), dense_rank() OVER (ORDER BY k) FROM w ORDER BY 1, 2$$);
SELECT * FROM win_check($$SELECT g, rank() OVER (PARTITION BY g), cume_dist() OVER (PARTITION BY g), count(*) OVER (PARTITION BY g) FROM w ORDER BY 1$$);

-- lag and lead: offsets, defaults, negative and zero offsets, NULL offset
SELECT * FROM win_check($$SELECT id, lag(k8) OVER w, lead(k8) OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY k, id)$$);
SELECT * FROM win_check($$SELECT id, lag(t, 2) OVER w, lead(t, 3, 'none') OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY k, id)$$);
SELECT * FROM win_check($$SELECT id, lag(n, 1, 0) OVER w, lead(n, 2, -1.50) OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY k, id)$$);
SELECT * FROM win_check($$SELECT id, lag(k, -2) OVER w, lead(k, -1, -7) OVER w, lag(k, 0) OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY k, id)$$);
SELECT * FROM win_check($$SELECT id, lag(k, NULL::int) OVER w, lead(k, 1, NULL) OVER w, lag(k, 100000) OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY k, id)$$);
SELECT * FROM win_check($$SELECT id, lag(f4) OVER w, lag(f8) OVER w, lead(bp) OVER w, lag(d) OVER w, lead(ts) OVER w, lag(tz, 2) OVER w, lag(k2) OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY k, id)$$);
SELECT * FROM win_check($$SELECT g, k, lag(k) OVER w, lead(k, 2, -1) OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY k) ORDER BY 1, 2, 3, 4$$);
-- a default of another type makes the argument a cast, not a column
SELECT * FROM win_check($$SELECT id, lag(k, 1, 0.5) OVER (PARTITION BY g ORDER BY k, id) FROM w$$);

-- first_value, last_value, nth_value: text and numeric, every frame
SELECT * FROM win_check($$SELECT id, first_value(t) OVER w, last_value(t) OVER w, nth_value(t, 2) OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY k, id)$$);
SELECT * FROM win_check($$SELECT id, first_value(n) OVER w, last_value(n) OVER w, nth_value(n, 3) OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY k, id)$$);
SELECT * FROM win_check($$SELECT id, first_value(n) OVER w, last_value(t) OVER w, nth_value(f8, 5) OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY k, id ROWS UNBOUNDED PRECEDING)$$);
SELECT * FROM win_check($$SELECT id, first_value(t) OVER w, last_value(n) OVER w, nth_value(bp, 2) OVER w, nth_value(k8, 1000) OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY k, id RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)$$);
SELECT * FROM win_check($$SELECT id, first_value(d) OVER w, last_value(tz) OVER w, nth_value(f4, 2) OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY k, id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)$$);
SELECT * FROM win_check($$SELECT id, nth_value(t, NULL::int) OVER (PARTITION BY g ORDER BY k, id) FROM w$$);
-- the default frame ends at the last peer
SELECT * FROM win_check($$SELECT g, k, first_value(k) OVER w, last_value(k) OVER w, nth_value(k, 4) OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY k) ORDER BY 1, 2, 3, 4, 5$$);
SELECT * FROM win_check($$SELECT g, k, last_value(k) OVER w, nth_value(k, 4) OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY k ROWS UNBOUNDED PRECEDING) ORDER BY 1, 2, 3, 4$$);

-- count, sum, avg, min, max in every frame
SELECT * FROM win_check($$SELECT id, count(*) OVER w, count(k) OVER w, count(t) OVER w, count(n) OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY k, id)$$);
SELECT * FROM win_check($$SELECT id, sum(k2) OVER w, sum(k) OVER w, sum(k8) OVER w, avg(k2) OVER w, avg(k) OVER w, avg(k8) OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY k, id)$$);
SELECT * FROM win_check($$SELECT id, sum(f4) OVER w, sum(f8) OVER w, min(f4) OVER w, max(f8) OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY k, id)$$);
SELECT * FROM win_check($$SELECT id, min(k2) OVER w, max(k2) OVER w, min(k) OVER w, max(k8) OVER w, min(d) OVER w, max(ts) OVER w, min(tz) OVER w, max(tz) OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY k, id)$$);
SELECT * FROM win_check($$SELECT id, count(*) OVER w, sum(k) OVER w, avg(k8) OVER w, sum(f8) OVER w, min(f8) OVER w, max(d) OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY k, id ROWS UNBOUNDED PRECEDING)$$);
SELECT * FROM win_check($$SELECT id, count(k) OVER w, sum(k8) OVER w, avg(k2) OVER w, sum(f8) OVER w, min(ts) OVER w, max(f4) OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY k, id RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)$$);
SELECT * FROM win_check($$SELECT id, count(*) OVER w, sum(k2) OVER w, avg(k) OVER w, sum(f4) OVER w, min(k8) OVER w, max(tz) OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY k, id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)$$);
SELECT * FROM win_check($$SELECT id, count(*) OVER w, sum(k8) OVER w, avg(k) OVER w, min(d) OVER w, max(k2) OVER w FROM w WINDOW w AS (PARTITION BY g) ORDER BY id$$);
-- over peers: RANGE includes them, ROWS stops at the row
SELECT * FROM win_check($$SELECT g, k, count(*) OVER w, count(k) OVER w, sum(k) OVER w, avg(k) OVER w, sum(f4) OVER w, min(k) OVER w, max(k) OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY k) ORDER BY 1, 2, 3, 4, 5$$);
SELECT * FROM win_check($$SELECT g, k, count(*) OVER w, sum(k) OVER w, avg(k) OVER w, max(k) OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY k ROWS UNBOUNDED PRECEDING) ORDER BY 1, 2, 3, 4, 5$$);
SELECT * FROM win_check($$SELECT g, k, count(*) OVER w, sum(k) OVER w, min(k) OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY k RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) ORDER BY 1, 2, 3$$);
-- float edge values in one partition: NaN, infinities, -0, denormals
SELECT * FROM win_check($$SELECT id, sum(f4) OVER w, sum(f8) OVER w, min(f4) OVER w, max(f4) OVER w, min(f8) OVER w, max(f8) OVER w FROM w WHERE g = 100 WINDOW w AS (ORDER BY id)$$);
SELECT * FROM win_check($$SELECT id, sum(f8) OVER w, min(f8) OVER w, max(f8) OVER w FROM w WHERE g = 100 WINDOW w AS (ORDER BY id DESC ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)$$);
-- integers at their limits: sum(int8) and avg are numeric, sum(int4) int8
SELECT * FROM win_check($$SELECT id, sum(k8) OVER w, avg(k8) OVER w, sum(k) OVER w, avg(k) OVER w, sum(k2) OVER w, avg(k2) OVER w, min(k8) OVER w, max(k8) OVER w FROM w WHERE g = 103 WINDOW w AS (ORDER BY id)$$);
SELECT * FROM win_check($$SELECT id, avg(k) OVER w, avg(k2) OVER w, avg(k8) OVER w FROM w WINDOW w AS (PARTITION BY g % 3 ORDER BY id)$$);
-- a partition whose arguments are all NULL; one of one row
SELECT * FROM win_check($$SELECT id, count(*) OVER w, count(k) OVER w, sum(k) OVER w, avg(k8) OVER w, min(f8) OVER w, max(d) OVER w, first_value(t) OVER w, lag(n) OVER w FROM w WHERE g IN (101, 102) WINDOW w AS (PARTITION BY g ORDER BY id)$$);

-- partition and order keys of every kind
SELECT * FROM win_check($$SELECT id, gt, row_number() OVER w, sum(k) OVER w, lag(id) OVER w FROM w WINDOW w AS (PARTITION BY gt ORDER BY id)$$);
SELECT * FROM win_check($$SELECT id, gt, row_number() OVER w, sum(k) OVER w, lag(id) OVER w FROM w WINDOW w AS (PARTITION BY gt COLLATE "C" ORDER BY id)$$);
SELECT * FROM win_check($$SELECT gt, t, rank() OVER w, count(*) OVER w FROM w WINDOW w AS (PARTITION BY gt ORDER BY t) ORDER BY 1, 2, 3$$);
SELECT * FROM win_check($$SELECT gt, t, rank() OVER w, count(*) OVER w FROM w WINDOW w AS (PARTITION BY gt COLLATE "C" ORDER BY t COLLATE "C" DESC) ORDER BY gt COLLATE "C", t COLLATE "C", 3$$);
SELECT * FROM win_check($$SELECT id, t, row_number() OVER w, first_value(id) OVER w FROM w WINDOW w AS (ORDER BY t, id)$$);
SELECT * FROM win_check($$SELECT id, bp, row_number() OVER w, count(*) OVER w, first_value(bp) OVER w FROM w WINDOW w AS (PARTITION BY bp ORDER BY id)$$);
SELECT * FROM win_check($$SELECT bp, rank() OVER (ORDER BY bp), dense_rank() OVER (ORDER BY bp DESC) FROM w ORDER BY 1, 2, 3$$);
SELECT * FROM win_check($$SELECT id, n, row_number() OVER w, first_value(n) OVER w, last_value(n) OVER w, count(*) OVER w FROM w WINDOW w AS (PARTITION BY n ORDER BY id)$$);
SELECT * FROM win_check($$SELECT id, f8, row_number() OVER w, first_value(f8) OVER w, count(*) OVER w FROM w WINDOW w AS (PARTITION BY f8 ORDER BY id)$$);
SELECT * FROM win_check($$SELECT id, f4, row_number() OVER w, first_value(f4) OVER w, sum(k) OVER w FROM w WINDOW w AS (PARTITION BY f4 ORDER BY id DESC)$$);
SELECT * FROM win_check($$SELECT id, row_number() OVER w, rank() OVER w, lag(id) OVER w FROM w WINDOW w AS (ORDER BY f8, id)$$);
SELECT * FROM win_check($$SELECT id, row_number() OVER w, rank() OVER w, lag(id) OVER w FROM w WINDOW w AS (ORDER BY f4 DESC NULLS LAST, n, id)$$);
SELECT * FROM win_check($$SELECT id, d, row_number() OVER w, min(ts) OVER w, max(tz) OVER w FROM w WINDOW w AS (PARTITION BY d ORDER BY tz, id)$$);
SELECT * FROM win_check($$SELECT id, ts, row_number() OVER w, count(*) OVER w FROM w WINDOW w AS (PARTITION BY date_trunc('month', ts) ORDER BY ts DESC, id)$$);
-- NULLs in the keys, DESC, NULLS FIRST
SELECT * FROM win_check($$SELECT id, row_number() OVER w, sum(k8) OVER w, lag(k) OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY k DESC, id)$$);
SELECT * FROM win_check($$SELECT id, row_number() OVER w, sum(k8) OVER w, lead(k) OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY k NULLS FIRST, id DESC)$$);
SELECT * FROM win_check($$SELECT id, row_number() OVER w, count(k) OVER w, first_value(k) OVER w FROM w WINDOW w AS (PARTITION BY k ORDER BY g DESC NULLS LAST, id)$$);
SELECT * FROM win_check($$SELECT g, k, rank() OVER w, sum(k2) OVER w, count(*) OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY k DESC NULLS LAST) ORDER BY 1, 2, 3, 4, 5$$);
SELECT * FROM win_check($$SELECT g, k2, k, rank() OVER w, percent_rank() OVER w FROM w WINDOW w AS (PARTITION BY g, k2 % 3 ORDER BY k NULLS FIRST) ORDER BY 1, 2, 3, 4$$);
-- single-row partitions, and an empty table
SELECT * FROM win_check($$SELECT id, row_number() OVER w, rank() OVER w, cume_dist() OVER w, ntile(3) OVER w, lag(k) OVER w, lead(k, 1, 0) OVER w, sum(k8) OVER w, first_value(t) OVER w, nth_value(t, 2) OVER w FROM w WINDOW w AS (PARTITION BY id ORDER BY k)$$);
SELECT * FROM win_check($$SELECT id, row_number() OVER w, rank() OVER w, sum(k8) OVER w, lag(t) OVER w, count(*) OVER w FROM e WINDOW w AS (PARTITION BY g ORDER BY k, id)$$);
SELECT * FROM win_error($$SELECT id, ntile(0) OVER (PARTITION BY g ORDER BY id), nth_value(k, 0) OVER (ORDER BY id) FROM e$$);

-- two windows with different sorts (two WindowAggs, each over its sort),
-- and two sharing one sort (the upper WindowAgg is over the lower one)
SELECT * FROM win_check($$SELECT id, row_number() OVER (PARTITION BY g ORDER BY id), sum(k8) OVER (ORDER BY k8, id), rank() OVER (ORDER BY t COLLATE "C", id) FROM w$$);
SELECT * FROM win_check($$SELECT id, row_number() OVER (PARTITION BY g ORDER BY k, id), count(*) OVER (PARTITION BY g), sum(k) OVER (PARTITION BY g ORDER BY k, id ROWS UNBOUNDED PRECEDING) FROM w$$);
-- over a join, over a GROUP BY (the arguments are the Agg's outputs)
CREATE TABLE v (g int, name text);
INSERT INTO v SELECT i, 'group ' || i FROM generate_series(0, 30) i;
ANALYZE v;
SELECT * FROM win_check($$SELECT w.id, v.name, row_number() OVER x, sum(w.k) OVER x, lag(v.g) OVER x FROM w JOIN v USING (g) WINDOW x AS (PARTITION BY v.name ORDER BY w.k, w.id)$$);
SELECT * FROM win_check($$SELECT g, count(*) AS c, sum(k) AS s, rank() OVER (ORDER BY count(*) DESC, g), sum(sum(k)) OVER (ORDER BY g), lag(g) OVER (ORDER BY sum(k), g) FROM w GROUP BY g$$);
SELECT * FROM win_check($$SELECT gt, c, row_number() OVER (ORDER BY c, gt), sum(c) OVER (ORDER BY c, gt) FROM (SELECT gt, count(*) AS c FROM w GROUP BY gt) s$$);

-- run conditions (PostgreSQL 15 stops the WindowAgg early)
SELECT * FROM win_check($$SELECT * FROM (SELECT id, g, row_number() OVER (PARTITION BY g ORDER BY k, id) AS rn FROM w) s WHERE rn <= 3$$);
SELECT * FROM win_check($$SELECT * FROM (SELECT g, k, rank() OVER (PARTITION BY g ORDER BY k DESC) AS r FROM w) s WHERE r < 5 ORDER BY 1, 2, 3$$);
SELECT * FROM win_check($$SELECT * FROM (SELECT id, count(*) OVER (ORDER BY k8, id) AS c, sum(k) OVER (ORDER BY k8, id) AS s FROM w) s WHERE c <= 10$$);
SELECT * FROM win_check($$SELECT * FROM (SELECT id, dense_rank() OVER (PARTITION BY g ORDER BY t, id) AS r, lag(k) OVER (PARTITION BY g ORDER BY t, id) FROM w) s WHERE 2 >= r$$);
SELECT * FROM win_check($$SELECT id, rn FROM (SELECT id, row_number() OVER (ORDER BY f8 DESC, id) AS rn FROM w) s WHERE rn <= 5$$);

-- a cursor moved back and forth (a Material keeps the rows for going back)
SELECT gs_cursor_check($$SELECT id, row_number() OVER w, rank() OVER w, sum(k8) OVER w, lag(t) OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY k, id)$$);
SELECT gs_plan_has($$DECLARE c SCROLL CURSOR FOR SELECT id, row_number() OVER (PARTITION BY g ORDER BY k, id) FROM w$$, 'GpuWindow');
BEGIN;
DECLARE c SCROLL CURSOR FOR SELECT id, g, row_number() OVER w, sum(k) OVER w FROM w WHERE g IN (1, 2) WINDOW w AS (PARTITION BY g ORDER BY k, id);
FETCH 3 FROM c;
FETCH BACKWARD 2 FROM c;
MOVE FORWARD 80 FROM c;
FETCH 2 FROM c;
MOVE BACKWARD 50 FROM c;
FETCH BACKWARD 2 FROM c;
FETCH LAST FROM c;
FETCH ABSOLUTE 88 FROM c;
COMMIT;

-- rescans: a window in a correlated subquery and under LATERAL
SELECT * FROM win_check($$SELECT o.g, (SELECT max(rn * 1000 + coalesce(s, 0)) FROM (SELECT row_number() OVER (ORDER BY k, id) AS rn, sum(k) OVER (ORDER BY k, id) AS s FROM w WHERE w.g = o.g) x) FROM generate_series(-1, 25) o(g)$$);
SELECT * FROM win_check($$SELECT o.g, l.* FROM (VALUES (1), (5), (NULL), (100), (7), (1)) o(g), LATERAL (SELECT id, k, rank() OVER (ORDER BY k), sum(k8) OVER (ORDER BY k, id), lag(t) OVER (ORDER BY k, id) FROM w WHERE w.g = o.g ORDER BY k, id LIMIT 5) l$$);
SELECT * FROM win_check($$SELECT v.g, l.* FROM v, LATERAL (SELECT max(rn) AS m, max(r) AS mr FROM (SELECT row_number() OVER (PARTITION BY k ORDER BY id) AS rn, rank() OVER (ORDER BY k) AS r FROM w WHERE w.g = v.g) x) l ORDER BY v.g$$);

-- ROWS frames with offsets: counts and integer sums slide, float sums, min
-- and max start again at each row's frame (as WindowAgg restarts them);
-- empty frames at the partitions' edges; offsets past the partition
SELECT * FROM win_check($$SELECT id, count(*) OVER w, count(k) OVER w, sum(k) OVER w, sum(k8) OVER w, avg(k2) OVER w, avg(k8) OVER w, sum(f8) OVER w, sum(f4) OVER w, min(f8) OVER w, max(d) OVER w, first_value(t) OVER w, last_value(n) OVER w, nth_value(k, 2) OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY k, id ROWS BETWEEN 3 PRECEDING AND 2 FOLLOWING)$$);
SELECT * FROM win_check($$SELECT id, count(*) OVER w, sum(k8) OVER w, sum(f8) OVER w, min(ts) OVER w, first_value(t) OVER w, last_value(k) OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY k, id ROWS BETWEEN 5 PRECEDING AND 2 PRECEDING)$$);
SELECT * FROM win_check($$SELECT id, count(*) OVER w, sum(k) OVER w, max(f4) OVER w, first_value(t) OVER w, nth_value(t, 3) OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY k, id ROWS BETWEEN 1 FOLLOWING AND 4 FOLLOWING)$$);
SELECT * FROM win_check($$SELECT id, count(*) OVER w, sum(k) OVER w, avg(k8) OVER w, last_value(id) OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY k, id ROWS BETWEEN UNBOUNDED PRECEDING AND 3 FOLLOWING)$$);
SELECT * FROM win_check($$SELECT id, count(*) OVER w, sum(k) OVER w, sum(f8) OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY k, id ROWS BETWEEN UNBOUNDED PRECEDING AND 2 PRECEDING)$$);
SELECT * FROM win_check($$SELECT id, count(*) OVER w, sum(k8) OVER w, min(k2) OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY k, id ROWS BETWEEN 0 PRECEDING AND 9223372036854775807 FOLLOWING)$$);
SELECT * FROM win_check($$SELECT id, count(*) OVER w, sum(k8) OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY k, id ROWS BETWEEN 100000 PRECEDING AND 100000 FOLLOWING)$$);
-- a frame over 1024 rows wide with a float sum: WindowAgg's (restarts; min
-- and max slide, see sort_window_numeric)
SELECT * FROM win_check($$SELECT id, sum(f8) OVER (PARTITION BY g ORDER BY k, id ROWS BETWEEN 2000 PRECEDING AND CURRENT ROW) FROM w$$);
-- FILTER: stable, leakproof filters are computed; one that may raise an
-- error (a division) keeps WindowAgg
SELECT * FROM win_check($$SELECT id, count(*) FILTER (WHERE k > 10) OVER w, sum(k8) FILTER (WHERE t >= 'e' AND k2 < 500) OVER w, min(f8) FILTER (WHERE d IS NOT NULL) OVER w, avg(k) FILTER (WHERE g <> 3) OVER w, count(*) OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY k, id)$$);
SELECT * FROM win_check($$SELECT id, count(n) FILTER (WHERE k > 5) OVER w, sum(f8) FILTER (WHERE k < 25) OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY k, id ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING)$$);
SELECT * FROM win_check($$SELECT id, count(*) FILTER (WHERE 100 / (k::int8 - 1000) < 1) OVER (PARTITION BY g ORDER BY k, id) FROM w$$);
SELECT * FROM win_error($$SELECT id, count(*) FILTER (WHERE 100 / (k - 7) > 1) OVER (PARTITION BY g ORDER BY k, id) FROM w$$);

-- mixed: one window with a function the node does not compute keeps
-- WindowAgg for all of it
SELECT * FROM win_check($$SELECT id, row_number() OVER w, sum(k) OVER w, string_agg(t, ',') OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY k, id)$$);
-- what stays with WindowAgg
CREATE AGGREGATE my_sum(int) (sfunc = int4pl, stype = int, initcond = '0');
-- (GROUPS with offsets is computed since issue 27, see sort_window_numeric)
SELECT * FROM win_check($$SELECT g, k, sum(k) OVER (PARTITION BY g ORDER BY k GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM w ORDER BY 1, 2, 3$$);
-- (RANGE with offsets is computed since issue 27, see sort_window_numeric)
SELECT * FROM win_check($$SELECT g, k, sum(k) OVER (PARTITION BY g ORDER BY k RANGE BETWEEN 5 PRECEDING AND 5 FOLLOWING) FROM w ORDER BY 1, 2, 3$$);
SELECT * FROM win_check($$SELECT id, sum(k8) OVER (PARTITION BY g ORDER BY k, id ROWS 2 PRECEDING) FROM w$$);
-- (a frame from the current row to the partition's end is computed since
-- issue 27)
SELECT * FROM win_check($$SELECT id, sum(k8) OVER (PARTITION BY g ORDER BY k, id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM w$$);
-- (EXCLUDE is computed since issue 27, see sort_window_args; min and max
-- too, each frame afresh as WindowAgg does)
SELECT * FROM win_check($$SELECT id, sum(k) OVER (PARTITION BY g ORDER BY k, id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE CURRENT ROW) FROM w$$);
SELECT * FROM win_check($$SELECT id, min(k) OVER (PARTITION BY g ORDER BY k, id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE CURRENT ROW) FROM w$$);
SELECT * FROM win_check($$SELECT id, my_sum(k) OVER (PARTITION BY g ORDER BY k, id) FROM w WHERE g <> 103$$);
SELECT * FROM win_check($$SELECT id, sum(n) OVER (PARTITION BY g ORDER BY k, id), avg(n) OVER (PARTITION BY g ORDER BY k, id) FROM w$$);
SELECT * FROM win_check($$SELECT id, avg(f8) OVER (PARTITION BY g ORDER BY k, id), min(t) OVER (PARTITION BY g ORDER BY k, id) FROM w WHERE g <> 103$$);
SELECT * FROM win_check($$SELECT id, sum(k + 1) OVER (PARTITION BY g ORDER BY k, id), lag(k * 2) OVER (PARTITION BY g ORDER BY k, id) FROM w WHERE g <> 103$$);
SELECT * FROM win_check($$SELECT id, sum(k + (random() * 0)::int) OVER (PARTITION BY g ORDER BY k, id) FROM w$$);
SELECT * FROM win_check($$SELECT id, string_agg(t, ',') OVER (PARTITION BY g ORDER BY k, id) FROM w$$);
SELECT * FROM win_check($$SELECT id, ntile(k) OVER (PARTITION BY g ORDER BY k, id) FROM w WHERE k > 0$$);

-- errors, as stock raises them
CREATE TABLE ov (id int, g int, f4 float4, f8 float8);
INSERT INTO ov SELECT i, i % 3, 3e38, 1e308 FROM generate_series(1, 30) i;
ANALYZE ov;
SELECT * FROM win_error($$SELECT id, sum(f8) OVER (ORDER BY id) FROM ov$$);
SELECT * FROM win_error($$SELECT id, sum(f8 * 1) OVER (ORDER BY id) FROM ov$$);
SELECT * FROM win_error($$SELECT id, sum(f8) OVER (PARTITION BY g ORDER BY id) FROM ov$$);
SELECT * FROM win_error($$SELECT id, sum(f8) OVER (PARTITION BY g) FROM ov$$);
SELECT * FROM win_error($$SELECT id, sum(f4) OVER (PARTITION BY g ORDER BY id ROWS UNBOUNDED PRECEDING) FROM ov$$);
SELECT * FROM win_error($$SELECT id, ntile(0) OVER (PARTITION BY g ORDER BY id) FROM w$$);
SELECT * FROM win_error($$SELECT id, ntile(-3) OVER (PARTITION BY g ORDER BY id) FROM w$$);
SELECT * FROM win_check($$SELECT id, ntile(NULL::int) OVER (PARTITION BY g ORDER BY id) FROM w$$);
SELECT * FROM win_error($$SELECT id, nth_value(t, 0) OVER (PARTITION BY g ORDER BY id) FROM w$$);
SELECT * FROM win_error($$SELECT id, nth_value(k8, -1) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM w$$);

-- a cancel while the window's rows are emitted (the sort is done by then)
SET statement_timeout = '300ms';
SELECT count(*) FROM (SELECT id, row_number() OVER (PARTITION BY g ORDER BY k, id) AS rn, sum(k8) OVER (PARTITION BY g ORDER BY k, id) AS s FROM w) x WHERE pg_sleep(0.01) IS NOT NULL;
SET gpusort.enabled = off;
SELECT count(*) FROM (SELECT id, row_number() OVER (PARTITION BY g ORDER BY k, id) AS rn, sum(k8) OVER (PARTITION BY g ORDER BY k, id) AS s FROM w) x WHERE pg_sleep(0.01) IS NOT NULL;
RESET gpusort.enabled;
RESET statement_timeout;
SELECT * FROM win_check($$SELECT id, row_number() OVER w, sum(k8) OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY k, id)$$);

-- a large table: one partition of 200000 rows, and 100000 partitions of 2
CREATE TABLE wbig (id int, c int, k int, k8 int8, f8 float8, t text);
INSERT INTO wbig
SELECT i, 1, abs(hashint4(i) % 1000), hashint8(i) % 1000000000000,
	   (hashint4(i + 1) % 1000000) / 7.0, md5(i::text)
  FROM generate_series(1, 200000) i;
ANALYZE wbig;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET gpusort.parallel = on;
SELECT * FROM win_check($$SELECT id, row_number() OVER w, rank() OVER w, count(*) OVER w, sum(k8) OVER w, sum(f8) OVER w, lag(k8) OVER w, first_value(t) OVER w FROM wbig WINDOW w AS (PARTITION BY c ORDER BY k, id)$$);
SELECT * FROM win_check($$SELECT k, rank() OVER w, dense_rank() OVER w, cume_dist() OVER w, count(*) OVER w, sum(k) OVER w FROM wbig WINDOW w AS (ORDER BY k DESC) ORDER BY 1, 2$$);
SELECT * FROM win_check($$SELECT id, count(*) OVER w, sum(k8) OVER w, sum(f8) OVER w, max(f8) OVER w, first_value(t) OVER w FROM wbig WINDOW w AS (PARTITION BY c ORDER BY k, id ROWS BETWEEN 10 PRECEDING AND 5 FOLLOWING)$$);
SELECT * FROM win_check($$SELECT id, row_number() OVER w, sum(k8) OVER w, min(f8) OVER w, lead(t, 1, '-') OVER w FROM wbig WINDOW w AS (PARTITION BY id / 2 ORDER BY k8, id)$$);
SELECT * FROM win_check($$SELECT * FROM (SELECT id, k, row_number() OVER (PARTITION BY k ORDER BY t, id) AS rn FROM wbig) s WHERE rn <= 3$$);
SET gpusort.parallel = off;
SELECT * FROM win_check($$SELECT id, row_number() OVER w, rank() OVER w, count(*) OVER w, sum(k8) OVER w, sum(f8) OVER w, lag(k8) OVER w, first_value(t) OVER w FROM wbig WINDOW w AS (PARTITION BY c ORDER BY k, id)$$);
SELECT * FROM win_check($$SELECT id, row_number() OVER w, sum(k8) OVER w, max(f8) OVER w, last_value(t) OVER w FROM wbig WINDOW w AS (PARTITION BY id / 2 ORDER BY k8, id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)$$);
RESET gpusort.parallel;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- gpusort.window_functions = off keeps WindowAgg over the GpuSort
SET gpusort.window_functions = off;
SELECT * FROM win_check($$SELECT id, row_number() OVER w, sum(k8) OVER w FROM w WINDOW w AS (PARTITION BY g ORDER BY k, id)$$);
SELECT gs_plan_uses_gpusort($$SELECT id, row_number() OVER (PARTITION BY g ORDER BY k, id) FROM w$$);
RESET gpusort.window_functions;

-- text under a database's libc collation other than C
SET client_min_messages = warning;
DROP DATABASE IF EXISTS gs_win_en;
RESET client_min_messages;
CREATE DATABASE gs_win_en TEMPLATE template0 ENCODING 'UTF8' LOCALE 'en_US.UTF-8';
\c gs_win_en
SET client_min_messages = warning;
CREATE EXTENSION gpusort;
RESET client_min_messages;
LOAD 'gpusort';
SET gpusort.min_rows = 0;
\set ECHO none
\i :gs_check_sql
\i :win_check_sql
\set ECHO all
CREATE TABLE wt (id int, gt text, t text);
INSERT INTO wt
SELECT i, (ARRAY['a', 'B', 'b', 'é', 'e', 'E', 'ä', 'z', 'Z', '', 'a b', 'ab', NULL])[1 + i % 13],
	   (ARRAY['x', 'X', 'é', 'e', 'co-op', 'coop', 'Coop', '', NULL])[1 + i % 9] || (i % 4)
  FROM generate_series(1, 1000) i;
ANALYZE wt;
SELECT * FROM win_check($$SELECT id, gt, row_number() OVER w, lag(t) OVER w, first_value(t) OVER w FROM wt WINDOW w AS (PARTITION BY gt ORDER BY t, id)$$);
SELECT * FROM win_check($$SELECT gt, t, rank() OVER w, dense_rank() OVER w, count(*) OVER w FROM wt WINDOW w AS (PARTITION BY gt ORDER BY t DESC NULLS FIRST) ORDER BY 1, 2, 3$$);
SELECT * FROM win_check($$SELECT * FROM (SELECT id, gt, row_number() OVER (PARTITION BY gt ORDER BY t COLLATE "C", id) AS rn FROM wt) s WHERE rn <= 2$$);
\c contrib_regression
DROP DATABASE gs_win_en;
