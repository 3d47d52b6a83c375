-- GpuWindow over expressions and numeric (issue 27), against stock, whole
-- results in order (win_check) and errors by SQLSTATE and message
-- (win_error), with a column that says whether the plan has GpuWindow.
--
-- 1. Arguments that are expressions: an aggregate's argument is evaluated
--    over every row first, and an error it raises (an overflow, a division
--    by zero) must surface at the row where WindowAgg raises it: not before
--    (a LIMIT, a run condition or a frame that never takes the row sees
--    none), not after.  lag, lead and the value functions evaluate theirs
--    on the row they read, as they return a row.
-- 2. sum, avg, min, max and count of numeric: values of mixed scales (the
--    result's scale is the largest taken), NaN, +-Infinity, -0, values past
--    128 bits and scales past 38 (WindowAgg computes those), frames that
--    grow and frames that slide.
-- 3. avg, variance and stddev (_pop, _samp) of float4 and float8, bit for
--    bit as float8_accum's Youngs-Cramer steps in WindowAgg's order, with
--    its overflow error.
-- 4. Frames: min and max slide over ROWS frames of any width (a monotone
--    queue), frames from the current row (or an offset) to the partition's
--    end, RANGE frames with offsets (bounds found with the in_range
--    functions, as WindowAgg finds them).
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
-- win_check_n(q): win_check's result, and where the window ran: f (the plan
-- keeps WindowAgg), fallback (GpuWindow handed it to WindowAgg at run time:
-- numerics past 128 bits, an in_range error) or t (GpuWindow computed it)
CREATE FUNCTION win_check_n(q text, OUT result text, OUT gpuwindow text) LANGUAGE plpgsql AS $f$
DECLARE
	line text;
	fallback boolean := false;
BEGIN
	result := (win_check(q)).result;
	IF NOT gs_plan_has(q, 'GpuWindow') THEN
		gpuwindow := 'f';
		RETURN;
	END IF;
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		fallback := fallback OR line LIKE '%GpuWindow Fallback%';
	END LOOP;
	gpuwindow := CASE WHEN fallback THEN 'fallback' ELSE 't' END;
END
$f$;

-- money as numeric(12,2), quantities, fees, scores; values of scales 0 to
-- 4 in m; NULLs
CREATE TABLE nw (
	id int, acct int, cat int, day date, price numeric(12,2), qty int,
	fee numeric(6,3), m numeric, f8 float8, k int, k8 int8);
INSERT INTO nw
SELECT i, i % 17, i % 5, date '2024-01-01' + i % 40,
	   CASE WHEN i % 43 = 0 THEN NULL ELSE (hashint4(i) % 100000) / 100.0 END,
	   CASE WHEN i % 47 = 0 THEN NULL ELSE abs(hashint4(i + 1) % 20) END,
	   CASE WHEN i % 53 = 0 THEN NULL ELSE abs(hashint4(i + 2) % 5000) / 1000.0 END,
	   CASE WHEN i % 59 = 0 THEN NULL ELSE round((hashint4(i + 3) % 1000000) / 1000.0, i % 5) END,
	   CASE WHEN i % 61 = 0 THEN NULL ELSE (hashint4(i + 4) % 100000) / 7.0 END,
	   CASE WHEN i % 31 = 0 THEN NULL ELSE hashint4(i + 5) % 1000 END,
	   hashint8(i) % 1000000000000
  FROM generate_series(1, 3000) i;
-- partition 100: NaN, infinities, -0, tiny and large values; 101: +Inf
-- and -Inf; 102: every value NULL; 103: one row; 104: values past 128 bits
-- (WindowAgg); 105: a scale past 38 (WindowAgg); 106: sums whose scaling
-- overflows 128 bits (WindowAgg)
INSERT INTO nw (id, acct, cat, m, k) VALUES
	(5001, 100, 0, 1.5, 1), (5002, 100, 0, 'NaN', 2), (5003, 100, 0, -0.000, 3),
	(5004, 100, 0, 1e-20, 4), (5005, 100, 0, 'Infinity', 5), (5006, 100, 0, -12345678901234567.12345678, 6),
	(5007, 100, 0, 0, 7), (5008, 100, 0, 999999999999999.9, 8), (5009, 100, 0, 'NaN', 9),
	(5011, 101, 0, 'Infinity', 1), (5012, 101, 0, 2.25, 2), (5013, 101, 0, '-Infinity', 3), (5014, 101, 0, 1, 4),
	(5021, 102, 0, NULL, NULL), (5022, 102, 0, NULL, NULL),
	(5031, 103, 0, -7.125, 1),
	(5041, 104, 0, 1, 1), (5042, 104, 0, 123456789012345678901234567890123456789012, 2), (5043, 104, 0, -5.5, 3),
	(5051, 105, 0, 1, 1), (5052, 105, 0, 1e-40, 2), (5053, 105, 0, 2, 3),
	(5061, 106, 0, 30000000000000000000000000000, 1), (5062, 106, 0, 0.0000000001, 2), (5063, 106, 0, 3, 3),
	(5064, 106, 0, 1e-30, 4);
-- the partitions past what the threads compute, apart: windows over every
-- other row must be computed by GpuWindow
CREATE TABLE nwx AS SELECT * FROM nw WHERE acct >= 104;
DELETE FROM nw WHERE acct >= 104;
ANALYZE nw, nwx;

-- 1. expressions
-- the issue's windows: a running total, sums of products, a share of a
-- whole partition, an average of a difference
SELECT * FROM win_check_n($$SELECT id, sum(price) OVER (PARTITION BY acct ORDER BY day, id) FROM nw$$);
SELECT * FROM win_check_n($$SELECT id, sum(price * qty) OVER (PARTITION BY cat ORDER BY day, id) FROM nw$$);
SELECT * FROM win_check_n($$SELECT cat, day, sum(price * qty) OVER (PARTITION BY cat ORDER BY day) FROM nw ORDER BY 1, 2, 3$$);
SELECT * FROM win_check_n($$SELECT id, price / sum(price) OVER (PARTITION BY acct) FROM nw WHERE acct < 100 ORDER BY id$$);
SELECT * FROM win_check_n($$SELECT id, avg(price - fee) OVER (PARTITION BY acct ORDER BY id), sum(fee * 2) OVER (PARTITION BY acct ORDER BY id) FROM nw$$);
-- expressions of every kind the node evaluates: integers, floats, casts,
-- CASE, COALESCE, NULL tests; count of an expression
SELECT * FROM win_check_n($$SELECT id, sum(k + 1) OVER w, sum(k8 - k) OVER w, avg(k * 2) OVER w, min(k % 7) OVER w, max(-k8) OVER w FROM nw WINDOW w AS (PARTITION BY cat ORDER BY id)$$);
SELECT * FROM win_check_n($$SELECT id, sum(f8 * 2) OVER w, min(f8 / 3) OVER w, max(f8 + k) OVER w, sum(k::float8) OVER w FROM nw WINDOW w AS (PARTITION BY cat ORDER BY id)$$);
SELECT * FROM win_check_n($$SELECT id, sum(k::numeric / 3) OVER w, sum(coalesce(price, 0)) OVER w, count(CASE WHEN k > 500 THEN 1 END) OVER w, sum(CASE WHEN qty IS NULL THEN 0 ELSE qty END) OVER w, count(price * qty) OVER w FROM nw WINDOW w AS (PARTITION BY acct ORDER BY id)$$);
SELECT * FROM win_check_n($$SELECT id, sum(price::int) OVER w, avg(qty::numeric(10,1)) OVER w, max(price::float8) OVER w, sum(day - date '2024-01-01') OVER w FROM nw WINDOW w AS (PARTITION BY acct ORDER BY id)$$);
-- lag, lead and the value functions of an expression (any that is not
-- volatile: text too)
SELECT * FROM win_check_n($$SELECT id, lag(k - qty) OVER w, lead(price * qty, 2, 0) OVER w, first_value(m + 1) OVER w, last_value(k::text || 'x') OVER w, nth_value(f8 / 2, 3) OVER w FROM nw WINDOW w AS (PARTITION BY cat ORDER BY id)$$);
-- in frames that slide (restarts), that start at the partition and end at
-- its end, and over peers
SELECT * FROM win_check_n($$SELECT id, sum(k * 2) OVER w, sum(price * qty) OVER w, min(m * 2) OVER w, max(f8 - 1) OVER w, count(k + 1) OVER w FROM nw WINDOW w AS (PARTITION BY cat ORDER BY id ROWS BETWEEN 3 PRECEDING AND 1 FOLLOWING)$$);
SELECT * FROM win_check_n($$SELECT id, sum(price * qty) OVER w, avg(m * 3) OVER w, max(k - 1) OVER w FROM nw WINDOW w AS (PARTITION BY cat ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)$$);
-- FILTER with an expression argument
SELECT * FROM win_check_n($$SELECT id, sum(price * qty) FILTER (WHERE k > 100) OVER w, count(m - 1) FILTER (WHERE qty < 5) OVER w FROM nw WINDOW w AS (PARTITION BY acct ORDER BY id)$$);
-- what stays with WindowAgg: a volatile argument, a function that is not
-- built in, a subquery
CREATE FUNCTION twice(numeric) RETURNS numeric LANGUAGE sql IMMUTABLE AS 'SELECT $1 * 2';
CREATE FUNCTION twice_c(int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS 'BEGIN RETURN $1 * 2; END';
SELECT * FROM win_check_n($$SELECT id, sum(k + (random() * 0)::int) OVER (PARTITION BY cat ORDER BY id) FROM nw$$);
SELECT * FROM win_check_n($$SELECT id, sum(twice_c(k)) OVER (PARTITION BY cat ORDER BY id) FROM nw$$);
SELECT * FROM win_check_n($$SELECT id, sum(twice(m)) OVER (PARTITION BY cat ORDER BY id) FROM nw$$);
SELECT * FROM win_check_n($$SELECT id, sum(k + (SELECT 1)) OVER (PARTITION BY cat ORDER BY id) FROM nw$$);

-- errors raised by an argument: at the row where WindowAgg raises them
CREATE TABLE ew (id int, g int, a int, b int, n numeric);
INSERT INTO ew SELECT i, i % 3, CASE WHEN i = 20 THEN 2147483647 ELSE i END, CASE WHEN i = 35 THEN 0 ELSE 1 END, i FROM generate_series(1, 60) i;
ANALYZE ew;
SELECT * FROM win_error($$SELECT id, sum(a * 2) OVER (ORDER BY id) FROM ew$$);
SELECT * FROM win_error($$SELECT id, sum(a / b) OVER (PARTITION BY g ORDER BY id) FROM ew$$);
SELECT * FROM win_error($$SELECT id, sum(n / b) OVER (PARTITION BY g ORDER BY id) FROM ew$$);
SELECT * FROM win_error($$SELECT id, sum(a + 1) OVER w, sum(n / b) OVER w FROM ew WINDOW w AS (ORDER BY id)$$);
SELECT * FROM win_error($$SELECT id, count(a / b) OVER (PARTITION BY g) FROM ew$$);
-- two aggregates failing differently: WindowAgg meets the lower row first
SELECT * FROM win_error($$SELECT id, sum(n / b) OVER w, sum(a * 2) OVER w FROM ew WINDOW w AS (ORDER BY id)$$);
SELECT * FROM win_error($$SELECT id, sum(a * 2) OVER w, sum(n / b) OVER w FROM ew WINDOW w AS (ORDER BY id DESC)$$);
-- both met while computing one row (a whole partition's frame)
SELECT * FROM win_error($$SELECT id, sum(n / b) OVER w, sum(a * 2) OVER w FROM ew WINDOW w AS (PARTITION BY g)$$);
SELECT * FROM win_error($$SELECT id, sum(a * 2) OVER w, sum(n / b) OVER w FROM ew WINDOW w AS (PARTITION BY g ORDER BY id DESC ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)$$);
-- before the failing row, rows come back (as many as stock returns)
SELECT * FROM win_check_n($$SELECT id, sum(a * 2) OVER (ORDER BY id) FROM ew ORDER BY id LIMIT 19$$);
SELECT * FROM win_error($$SELECT id, sum(a * 2) OVER (ORDER BY id) FROM ew ORDER BY id LIMIT 20$$);
SELECT * FROM win_check_n($$SELECT * FROM (SELECT id, row_number() OVER w AS rn, sum(a / b) OVER w FROM ew WINDOW w AS (PARTITION BY g ORDER BY id)) s WHERE rn <= 5$$);
-- a frame that never takes the failing row, and a FILTER that leaves it out
SELECT * FROM win_check_n($$SELECT id, sum(a * 2) OVER (ORDER BY id ROWS BETWEEN 100 PRECEDING AND 50 PRECEDING) FROM ew$$);
SELECT * FROM win_check_n($$SELECT id, sum(a / b) FILTER (WHERE b <> 0) OVER (PARTITION BY g ORDER BY id), sum(a * 2) FILTER (WHERE a < 1000) OVER (PARTITION BY g ORDER BY id) FROM ew$$);
-- lag of an expression raises on the row it reads
SELECT * FROM win_error($$SELECT id, lag(a * 2) OVER (ORDER BY id) FROM ew$$);
SELECT * FROM win_check_n($$SELECT id, lag(a * 2) OVER (ORDER BY id) FROM ew ORDER BY id LIMIT 20$$);
SELECT * FROM win_error($$SELECT id, lead(a / b, 3) OVER (ORDER BY id) FROM ew$$);

-- 2. numeric: sum, avg, min, max, count over the frames that grow
SELECT * FROM win_check_n($$SELECT id, sum(m) OVER w, avg(m) OVER w, min(m) OVER w, max(m) OVER w, count(m) OVER w FROM nw WINDOW w AS (PARTITION BY acct ORDER BY id)$$);
SELECT * FROM win_check_n($$SELECT id, sum(m) OVER w, avg(m) OVER w, min(m) OVER w, max(m) OVER w FROM nw WINDOW w AS (PARTITION BY acct ORDER BY k DESC NULLS FIRST, id ROWS UNBOUNDED PRECEDING)$$);
SELECT * FROM win_check_n($$SELECT id, sum(m) OVER w, avg(price) OVER w, min(fee) OVER w, max(m) OVER w FROM nw WINDOW w AS (PARTITION BY acct) ORDER BY id$$);
SELECT * FROM win_check_n($$SELECT acct, k, sum(m) OVER w, avg(m) OVER w, min(m) OVER w, max(m) OVER w FROM nw WINDOW w AS (PARTITION BY acct ORDER BY k) ORDER BY 1, 2, 3, 4, 5, 6$$);
SELECT * FROM win_check_n($$SELECT id, sum(m) OVER w, avg(m) OVER w FROM nw WINDOW w AS (ORDER BY id)$$);
-- the edge partitions one at a time, each way round
SELECT * FROM win_check_n($$SELECT id, sum(m) OVER w, avg(m) OVER w, min(m) OVER w, max(m) OVER w, count(m) OVER w FROM nw WHERE acct BETWEEN 100 AND 103 WINDOW w AS (PARTITION BY acct ORDER BY k)$$);
SELECT * FROM win_check_n($$SELECT id, sum(m) OVER w, avg(m) OVER w, min(m) OVER w, max(m) OVER w FROM nw WHERE acct BETWEEN 100 AND 103 WINDOW w AS (PARTITION BY acct ORDER BY k DESC)$$);
SELECT * FROM win_check_n($$SELECT id, sum(m) OVER w, avg(m) OVER w, min(m) OVER w, max(m) OVER w FROM nw WHERE acct BETWEEN 100 AND 103 WINDOW w AS (PARTITION BY acct) ORDER BY id$$);
-- min and max of equal values of other scales: the later row's is kept
SELECT * FROM win_check_n($$SELECT id, min(v) OVER w, max(v) OVER w FROM (VALUES (1, 1.0), (2, 1.00), (3, 1), (4, 0.5), (5, 0.50), (6, 2.000), (7, 2.0)) x(id, v) WINDOW w AS (ORDER BY id)$$);
-- past 128 bits, a scale past 38, a rescaling that overflows: WindowAgg
SELECT * FROM win_check_n($$SELECT id, sum(m) OVER w, avg(m) OVER w, min(m) OVER w, max(m) OVER w FROM nwx WINDOW w AS (PARTITION BY acct ORDER BY k)$$);
SELECT * FROM win_check_n($$SELECT id, sum(m) OVER w FROM (SELECT * FROM nw WHERE acct = 1 UNION ALL SELECT * FROM nwx WHERE acct = 106) s WINDOW w AS (PARTITION BY acct ORDER BY k, id)$$);
SELECT * FROM win_check_n($$SELECT id, max(m) OVER w FROM (SELECT * FROM nw WHERE acct = 1 UNION ALL SELECT * FROM nwx WHERE acct = 104) s WINDOW w AS (PARTITION BY acct ORDER BY k, id)$$);
SELECT * FROM win_check_n($$SELECT id, sum(m) OVER w FROM nwx WHERE acct = 106 WINDOW w AS (ORDER BY k ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)$$);
-- sums of values at the limit of what the threads read, 2^95 - 1 and its
-- negation, many times (the sums pass 2^95; past 2^95 a value goes to
-- WindowAgg, as above)
SELECT * FROM win_check_n($$SELECT i, sum(v) OVER (ORDER BY i), avg(v) OVER (ORDER BY i) FROM (SELECT i, CASE WHEN i % 3 = 0 THEN -39614081257132168796771975167 ELSE 39614081257132168796771975167 END AS v FROM generate_series(1, 50) i) x$$);
SELECT * FROM win_check_n($$SELECT i, sum(v) OVER (ORDER BY i) FROM (SELECT i, 3961408125713216879677197516.7 AS v FROM generate_series(1, 100) i) x$$);
-- frames that slide: values in at the end and out at the start, the sum's
-- scale the frame's largest; wide frames; to the partition's end
SELECT * FROM win_check_n($$SELECT id, sum(m) OVER w, avg(m) OVER w, min(m) OVER w, max(m) OVER w, count(m) OVER w FROM nw WINDOW w AS (PARTITION BY acct ORDER BY id ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING)$$);
SELECT * FROM win_check_n($$SELECT id, sum(m) OVER w, avg(m) OVER w, min(m) OVER w FROM nw WHERE acct BETWEEN 100 AND 103 WINDOW w AS (PARTITION BY acct ORDER BY k ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)$$);
SELECT * FROM win_check_n($$SELECT id, sum(m) OVER w, max(m) OVER w FROM nw WINDOW w AS (PARTITION BY acct ORDER BY id ROWS BETWEEN 4 PRECEDING AND 1 PRECEDING)$$);
SELECT * FROM win_check_n($$SELECT id, sum(m) OVER w, avg(m) OVER w, count(m) OVER w FROM nw WINDOW w AS (ORDER BY id ROWS BETWEEN 2000 PRECEDING AND 1 FOLLOWING)$$);
SELECT * FROM win_check_n($$SELECT id, sum(m) OVER w, avg(price * qty) OVER w FROM nw WINDOW w AS (PARTITION BY cat ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)$$);
SELECT * FROM win_check_n($$SELECT id, sum(m) OVER w, avg(m) OVER w FROM nw WHERE acct BETWEEN 100 AND 103 WINDOW w AS (PARTITION BY acct ORDER BY k ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING)$$);
-- the largest scale leaves the frame: the sum's scale drops to the next
SELECT * FROM win_check_n($$SELECT id, sum(v) OVER w, avg(v) OVER w FROM (VALUES (1, 1.125), (2, 2.5), (3, 3), (4, 4.50), (5, 'NaN'), (6, 6), (7, 7.0), (8, 'Infinity'), (9, 9), (10, 10)) x(id, v) WINDOW w AS (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING)$$);
SELECT * FROM win_check_n($$SELECT id, sum(v) OVER w FROM (VALUES (1, 39614081257132168796771975167), (2, 0.5), (3, 1), (4, 2)) x(id, v) WINDOW w AS (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)$$);
-- numeric with a FILTER, as a run condition's window, in a LATERAL rescan
SELECT * FROM win_check_n($$SELECT id, sum(m) FILTER (WHERE k > 300) OVER w, avg(price) FILTER (WHERE qty > 3) OVER w FROM nw WINDOW w AS (PARTITION BY cat ORDER BY id)$$);
SELECT * FROM win_check_n($$SELECT * FROM (SELECT id, acct, count(*) OVER w AS c, sum(m) OVER w AS s FROM nw WINDOW w AS (PARTITION BY acct ORDER BY id)) x WHERE c <= 4$$);
SELECT * FROM win_check_n($$SELECT o.n, l.* FROM (VALUES (1), (2), (5), (1)) o(n), LATERAL (SELECT id, sum(price * o.n) OVER (ORDER BY id), avg(m + o.n) OVER (ORDER BY id) FROM nw WHERE acct = o.n ORDER BY id LIMIT 6) l$$);

-- 3. float statistics
CREATE TABLE fw (id int, g int, f4 float4, f8 float8);
INSERT INTO fw
SELECT i, i % 7,
	   CASE WHEN i % 23 = 0 THEN NULL ELSE ((hashint4(i) % 20000) / 3.0)::float4 END,
	   CASE WHEN i % 29 = 0 THEN NULL ELSE (hashint4(i + 1) % 1000000) / 7.0 END
  FROM generate_series(1, 3000) i;
-- 100: NaN, the infinities, -0, tiny and huge values; 101: NULLs; 102: one
-- row; 103: two equal rows
INSERT INTO fw VALUES
	(5001, 100, 1.5, 1.5), (5002, 100, '-0', '-0'), (5003, 100, 'NaN', 1e-300), (5004, 100, 3e38, 1e150),
	(5005, 100, '-Infinity', 'Infinity'), (5006, 100, 2, 'NaN'), (5007, 100, 1e-40, -1e150), (5008, 100, 7, 7),
	(5011, 101, NULL, NULL), (5012, 101, NULL, NULL),
	(5021, 102, 4.25, 4.25),
	(5031, 103, 2, 2), (5032, 103, 2, 2);
ANALYZE fw;
SELECT * FROM win_check_n($$SELECT id, avg(f4) OVER w, avg(f8) OVER w, var_pop(f8) OVER w, var_samp(f4) OVER w, stddev_pop(f4) OVER w, stddev_samp(f8) OVER w, variance(f8) OVER w, stddev(f4) OVER w FROM fw WINDOW w AS (PARTITION BY g ORDER BY id)$$);
SELECT * FROM win_check_n($$SELECT id, avg(f8) OVER w, var_samp(f8) OVER w, stddev_pop(f4) OVER w FROM fw WINDOW w AS (PARTITION BY g ORDER BY id DESC ROWS UNBOUNDED PRECEDING)$$);
SELECT * FROM win_check_n($$SELECT id, avg(f8) OVER w, var_pop(f4) OVER w, stddev_samp(f8) OVER w FROM fw WINDOW w AS (PARTITION BY g ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)$$);
SELECT * FROM win_check_n($$SELECT id, avg(f4) OVER w, avg(f8) OVER w, var_samp(f8) OVER w, stddev_samp(f4) OVER w FROM fw WINDOW w AS (PARTITION BY g ORDER BY id ROWS BETWEEN 3 PRECEDING AND 1 FOLLOWING)$$);
SELECT * FROM win_check_n($$SELECT id, avg(f8 * 2) OVER w, stddev_pop(f8 - f4) OVER w, variance(f4::float8 / 3) OVER w FROM fw WINDOW w AS (PARTITION BY g ORDER BY id)$$);
SELECT * FROM win_check_n($$SELECT id, avg(f8) FILTER (WHERE id > 100) OVER w, var_pop(f8) FILTER (WHERE f4 > 0) OVER w FROM fw WINDOW w AS (PARTITION BY g ORDER BY id)$$);
SELECT * FROM win_check_n($$SELECT id, avg(f4) OVER w, avg(f8) OVER w, var_pop(f8) OVER w, var_samp(f4) OVER w, stddev_samp(f8) OVER w FROM fw WHERE g >= 100 WINDOW w AS (PARTITION BY g ORDER BY id)$$);
SELECT * FROM win_check_n($$SELECT id, avg(f4) OVER w, avg(f8) OVER w, var_pop(f8) OVER w, stddev_samp(f4) OVER w FROM fw WHERE g >= 100 WINDOW w AS (PARTITION BY g ORDER BY id DESC)$$);
-- the overflow float8_accum raises: Sxx past the largest float8 from finite
-- values, and Sx
CREATE TABLE fo (id int, f8 float8);
INSERT INTO fo VALUES (1, 1e200), (2, -1e200), (3, 1), (4, 1e308), (5, 1e308);
ANALYZE fo;
SELECT * FROM win_error($$SELECT id, var_pop(f8) OVER (ORDER BY id) FROM fo$$);
SELECT * FROM win_check_n($$SELECT id, var_pop(f8) OVER (ORDER BY id) FROM fo ORDER BY id LIMIT 1$$);
SELECT * FROM win_error($$SELECT id, avg(f8) OVER (ORDER BY id) FROM fo WHERE id > 2$$);
SELECT * FROM win_check_n($$SELECT id, avg(f8) OVER (ORDER BY id) FROM fo ORDER BY id LIMIT 1$$);

-- 4. frames: min and max over frames that slide, wide ones included
SELECT * FROM win_check_n($$SELECT id, min(k) OVER w, max(k8) OVER w, min(f8) OVER w, max(m) OVER w, min(price) OVER w, max(day) OVER w FROM nw WINDOW w AS (PARTITION BY cat ORDER BY id ROWS BETWEEN 3 PRECEDING AND 2 FOLLOWING)$$);
SELECT * FROM win_check_n($$SELECT id, min(k) OVER w, max(f8) OVER w, min(m) OVER w, max(m * 2) OVER w FROM nw WINDOW w AS (ORDER BY id ROWS BETWEEN 1100 PRECEDING AND 40 FOLLOWING)$$);
SELECT * FROM win_check_n($$SELECT id, max(k) OVER w, min(f8) OVER w, max(m) OVER w FROM nw WINDOW w AS (PARTITION BY cat ORDER BY id ROWS BETWEEN 2000 PRECEDING AND 5 PRECEDING)$$);
SELECT * FROM win_check_n($$SELECT id, min(f4) OVER w, max(f4) OVER w, min(f8) OVER w, max(f8) OVER w FROM fw WHERE g >= 100 WINDOW w AS (PARTITION BY g ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING)$$);
SELECT * FROM win_check_n($$SELECT id, min(m) OVER w, max(m) OVER w FROM nw WHERE acct >= 100 AND acct < 104 WINDOW w AS (PARTITION BY acct ORDER BY k ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING)$$);
SELECT * FROM win_check_n($$SELECT id, min(v) OVER w, max(v) OVER w FROM (VALUES (1, 1.0), (2, 1.00), (3, 1), (4, 0.5), (5, 0.50), (6, 2.000), (7, 2.0), (8, 0.500)) x(id, v) WINDOW w AS (ORDER BY id ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING)$$);
SELECT * FROM win_check_n($$SELECT id, min(k) FILTER (WHERE qty > 5) OVER w, max(price) FILTER (WHERE k > 100) OVER w FROM nw WINDOW w AS (PARTITION BY acct ORDER BY id ROWS BETWEEN 4 PRECEDING AND CURRENT ROW)$$);
SELECT * FROM win_check_n($$SELECT id, max(m) OVER w FROM (SELECT * FROM nw WHERE acct = 1 UNION ALL SELECT * FROM nwx WHERE acct = 104) s WINDOW w AS (PARTITION BY acct ORDER BY k, id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)$$);
-- from the current row, or an offset, to the partition's end
SELECT * FROM win_check_n($$SELECT id, count(*) OVER w, count(k) OVER w, sum(k) OVER w, sum(k8) OVER w, avg(qty) OVER w, min(k) OVER w, max(f8) OVER w, min(m) OVER w, first_value(k) OVER w, last_value(id) OVER w, nth_value(k, 3) OVER w FROM nw WINDOW w AS (PARTITION BY cat ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)$$);
SELECT * FROM win_check_n($$SELECT id, count(*) OVER w, sum(k) OVER w, max(m) OVER w, first_value(k) OVER w FROM nw WINDOW w AS (PARTITION BY acct ORDER BY k DESC, id ROWS BETWEEN 2 FOLLOWING AND UNBOUNDED FOLLOWING)$$);
SELECT * FROM win_check_n($$SELECT id, count(*) OVER w, sum(k8) OVER w, min(f8) OVER w FROM nw WINDOW w AS (PARTITION BY acct ORDER BY id ROWS BETWEEN 3 PRECEDING AND UNBOUNDED FOLLOWING)$$);
-- a float sum over them: WindowAgg's restarts would read every frame whole
SELECT * FROM win_check_n($$SELECT id, sum(f8) OVER (PARTITION BY cat ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM nw$$);
-- an argument's error in them: when the frames' end first passes the row
SELECT * FROM win_error($$SELECT id, min(a * 2) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM ew$$);
SELECT * FROM win_check_n($$SELECT id, max(a * 2) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND 2 PRECEDING) FROM ew ORDER BY id LIMIT 21$$);
SELECT * FROM win_error($$SELECT id, max(a * 2) OVER (ORDER BY id ROWS BETWEEN 5 PRECEDING AND 2 PRECEDING) FROM ew ORDER BY id LIMIT 22$$);
SELECT * FROM win_check_n($$SELECT id, max(a * 2) OVER (ORDER BY id ROWS BETWEEN 2 FOLLOWING AND 3 FOLLOWING) FROM ew WHERE id > 17 ORDER BY id LIMIT 0$$);
SELECT * FROM win_check_n($$SELECT id, min(a / b) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 1 FOLLOWING AND 2 FOLLOWING) FROM ew WHERE id >= 35$$);

-- RANGE with offsets: dates and intervals (the 7-day moving average),
-- integers, floats, numerics, timestamps; DESC, NULLS FIRST, NULL keys;
-- bounds past the partition; a negative offset raises the in_range
-- function's error where WindowAgg does (the window falls back to it)
SELECT * FROM win_check_n($$SELECT id, avg(price) OVER w, sum(m) OVER w, count(*) OVER w, min(k) OVER w, max(m) OVER w FROM nw WINDOW w AS (PARTITION BY acct ORDER BY day RANGE BETWEEN '6 days' PRECEDING AND CURRENT ROW) ORDER BY id$$);
SELECT * FROM win_check_n($$SELECT acct, day, avg(price) OVER w, count(*) OVER w FROM nw WINDOW w AS (PARTITION BY acct ORDER BY day DESC RANGE BETWEEN '3 days' PRECEDING AND '2 days' FOLLOWING) ORDER BY 1, 2, 3, 4$$);
SELECT * FROM win_check_n($$SELECT id, sum(k) OVER w, count(k) OVER w, max(f8) OVER w, avg(qty) OVER w FROM nw WINDOW w AS (PARTITION BY cat ORDER BY k NULLS FIRST RANGE BETWEEN 10 PRECEDING AND 5 FOLLOWING) ORDER BY id$$);
SELECT * FROM win_check_n($$SELECT id, sum(k8) OVER w, count(*) OVER w, min(m) OVER w FROM nw WINDOW w AS (PARTITION BY cat ORDER BY m DESC NULLS LAST RANGE BETWEEN 100.5 PRECEDING AND 0 FOLLOWING) ORDER BY id$$);
SELECT * FROM win_check_n($$SELECT id, sum(k) OVER w, count(*) OVER w FROM nw WINDOW w AS (PARTITION BY cat ORDER BY f8 RANGE BETWEEN 1000 FOLLOWING AND 5000 FOLLOWING) ORDER BY id$$);
SELECT * FROM win_check_n($$SELECT id, sum(k) OVER w, count(*) OVER w FROM nw WINDOW w AS (PARTITION BY cat ORDER BY k RANGE BETWEEN UNBOUNDED PRECEDING AND 5 PRECEDING) ORDER BY id$$);
SELECT * FROM win_check_n($$SELECT id, sum(k) OVER w, count(*) OVER w, sum(m) OVER w FROM nw WINDOW w AS (PARTITION BY cat ORDER BY k RANGE BETWEEN 3 PRECEDING AND UNBOUNDED FOLLOWING) ORDER BY id$$);
SELECT * FROM win_check_n($$SELECT id, count(*) OVER w, sum(k) OVER w, min(id) OVER w FROM nw WINDOW w AS (ORDER BY day::timestamp RANGE BETWEEN '36 hours' PRECEDING AND '1 day' FOLLOWING) ORDER BY id$$);
SELECT * FROM win_check_n($$SELECT id, count(*) OVER w, sum(k) OVER w FROM nw WINDOW w AS (PARTITION BY acct ORDER BY k RANGE BETWEEN 1000000 PRECEDING AND 1000000 FOLLOWING) ORDER BY id$$);
SELECT * FROM win_check_n($$SELECT id, sum(m) OVER w, avg(m) OVER w, max(m) OVER w FROM nw WHERE acct BETWEEN 100 AND 103 WINDOW w AS (PARTITION BY acct ORDER BY k RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING)$$);
SELECT * FROM win_error($$SELECT id, sum(k) OVER (PARTITION BY cat ORDER BY k RANGE BETWEEN -5 PRECEDING AND 5 FOLLOWING) FROM nw$$);
SELECT * FROM win_check_n($$SELECT id, count(*) OVER (PARTITION BY cat ORDER BY k RANGE BETWEEN -5 PRECEDING AND 5 FOLLOWING) FROM nw WHERE k IS NULL ORDER BY id$$);
-- GROUPS with offsets, and RANGE or GROUPS from the current row's first peer
SELECT * FROM win_check_n($$SELECT cat, k, count(*) OVER w, sum(k) OVER w, sum(m) OVER w, min(m) OVER w, max(f8) OVER w FROM nw WINDOW w AS (PARTITION BY cat ORDER BY k GROUPS BETWEEN 2 PRECEDING AND 1 FOLLOWING) ORDER BY 1, 2, 3, 4, 5, 6, 7$$);
SELECT * FROM win_check_n($$SELECT cat, k, count(*) OVER w, sum(k8) OVER w FROM nw WINDOW w AS (PARTITION BY cat ORDER BY k DESC NULLS FIRST GROUPS BETWEEN 1 FOLLOWING AND 3 FOLLOWING) ORDER BY 1, 2, 3, 4$$);
SELECT * FROM win_check_n($$SELECT cat, k, count(*) OVER w, avg(m) OVER w FROM nw WINDOW w AS (PARTITION BY cat ORDER BY k GROUPS BETWEEN 5 PRECEDING AND 2 PRECEDING) ORDER BY 1, 2, 3, 4$$);
SELECT * FROM win_check_n($$SELECT cat, k, count(*) OVER w, max(k8) OVER w FROM nw WINDOW w AS (PARTITION BY cat ORDER BY k GROUPS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) ORDER BY 1, 2, 3, 4$$);
SELECT * FROM win_check_n($$SELECT cat, k, count(*) OVER w, sum(k) OVER w, min(m) OVER w FROM nw WINDOW w AS (PARTITION BY cat ORDER BY k RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) ORDER BY 1, 2, 3, 4, 5$$);
SELECT * FROM win_check_n($$SELECT cat, k, count(*) OVER w, sum(k) OVER w FROM nw WINDOW w AS (PARTITION BY cat ORDER BY k RANGE BETWEEN CURRENT ROW AND 10 FOLLOWING) ORDER BY 1, 2, 3, 4$$);
SELECT * FROM win_check_n($$SELECT cat, k, count(*) OVER w, sum(k) OVER w FROM nw WINDOW w AS (PARTITION BY cat ORDER BY k GROUPS BETWEEN 9223372036854775807 PRECEDING AND 9223372036854775807 FOLLOWING) ORDER BY 1, 2, 3, 4$$);
SELECT * FROM win_check_n($$SELECT id, count(*) OVER w FROM nw WINDOW w AS (ORDER BY id GROUPS BETWEEN 0 PRECEDING AND 0 FOLLOWING)$$);
SELECT * FROM win_error($$SELECT id, count(*) OVER (ORDER BY k GROUPS BETWEEN -1 PRECEDING AND CURRENT ROW) FROM nw$$);
-- a float sum over a RANGE frame keeps WindowAgg (restarts)
SELECT * FROM win_check_n($$SELECT id, sum(f8) OVER (PARTITION BY cat ORDER BY id RANGE BETWEEN 5 PRECEDING AND 5 FOLLOWING) FROM nw$$);

-- parallel and serial input, many rows
CREATE TABLE nbig AS
SELECT i AS id, i % 100 AS acct, (hashint4(i) % 10000000) / 100.0 AS amount,
	   abs(hashint4(i + 1) % 50) AS qty
  FROM generate_series(1, 100000) i;
ANALYZE nbig;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET gpusort.parallel = on;
SELECT * FROM win_check_n($$SELECT id, sum(amount) OVER w, avg(amount) OVER w, sum(amount * qty) OVER w, max(amount) OVER w FROM nbig WINDOW w AS (PARTITION BY acct ORDER BY id)$$);
SET gpusort.parallel = off;
SELECT * FROM win_check_n($$SELECT id, amount / sum(amount) OVER (PARTITION BY acct), min(amount - qty) OVER (PARTITION BY acct) FROM nbig ORDER BY id$$);
RESET gpusort.parallel;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- gpusort.window_functions = off
SET gpusort.window_functions = off;
SELECT * FROM win_check_n($$SELECT id, sum(price * qty) OVER (PARTITION BY cat ORDER BY id), avg(m) OVER (PARTITION BY cat ORDER BY id) FROM nw$$);
RESET gpusort.window_functions;
