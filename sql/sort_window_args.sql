-- GpuWindow's arithmetic on threads (issue 27), against stock, whole
-- results in order (win_check) and errors by SQLSTATE and message
-- (win_error):
--
-- 1. aggregate arguments that are +, -, * and unary minus of integer and
--    numeric columns and constants, with the casts between them, computed
--    by the threads as fixed point (winexpr.c); the rows the threads cannot
--    give (NaN, infinities, values past 128 bits or scale 38, and every
--    value PostgreSQL raises an error about) evaluated by PostgreSQL,
--    whose error comes at the row stock raises it at.  win_args also says
--    how many argument rows the backend evaluated (EXPLAIN ANALYZE).
-- 2. RANGE frames with offsets over integer, date and timestamp keys,
--    whose bounds the threads find by arithmetic on the keys (winrange.c);
--    keys at the edges of their types (infinities, the ends of timestamp's
--    range) send the window back to the in_range functions.
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
-- win_args(q): win_check's result, where the window ran (f: WindowAgg,
-- fallback: GpuWindow handed it to WindowAgg at run time, t: GpuWindow) and
-- the argument rows the backend evaluated (NULL: no expression argument),
-- how a RANGE offset frame's bounds were found, and the rows of output
-- expressions the backend evaluated (NULL: none computed on threads)
CREATE FUNCTION win_args(q text, OUT result text, OUT gpuwindow text, OUT backend_rows bigint,
						 OUT range_bounds text, OUT output_backend bigint)
LANGUAGE plpgsql AS $f$
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
		IF line LIKE '%Output Expressions Evaluated in Backend:%' THEN
			output_backend := substring(line from 'Backend: ([0-9]+)')::bigint;
		END IF;
		IF line LIKE '%Range Bounds:%' THEN
			range_bounds := substring(line from 'Range Bounds: (.*)$');
		END IF;
		IF line LIKE '%Arguments Evaluated in Backend:%' THEN
			backend_rows := coalesce(backend_rows, 0) +
				substring(line from 'Backend: ([0-9]+)')::bigint;
		END IF;
	END LOOP;
	gpuwindow := CASE WHEN fallback THEN 'fallback' ELSE 't' END;
END
$f$;

-- money: numeric(12,2) prices, int4 quantities, numeric(6,3) fees, m of
-- scales 0 to 4, int2 and int8; NULLs
CREATE TABLE wa_money (
	id int, acct int, cat int, day date, ts timestamp, tz timestamptz,
	price numeric(12,2), qty int, fee numeric(6,3), m numeric, s int2, k8 int8);
INSERT INTO wa_money
SELECT i, i % 17, i % 5, date '2024-01-01' + i % 40,
	   timestamp '2024-01-01' + (hashint4(i) % 5000000) * interval '1 second',
	   timestamptz '2024-03-20 00:00+00' + (abs(hashint4(i + 9)) % 2000000) * interval '1 second',
	   CASE WHEN i % 43 = 0 THEN NULL ELSE (hashint4(i) % 100000) / 100.0 END,
	   CASE WHEN i % 47 = 0 THEN NULL ELSE abs(hashint4(i + 1) % 20) END,
	   CASE WHEN i % 53 = 0 THEN NULL ELSE abs(hashint4(i + 2) % 5000) / 1000.0 END,
	   CASE WHEN i % 59 = 0 THEN NULL ELSE round((hashint4(i + 3) % 1000000) / 1000.0, i % 5) END,
	   CASE WHEN i % 37 = 0 THEN NULL ELSE hashint4(i + 4) % 10000 END,
	   hashint8(i) % 1000000000000
  FROM generate_series(1, 3000) i;
ANALYZE wa_money;
-- values the threads leave to PostgreSQL: NaN, infinities, past 128 bits,
-- scales past 38 (acct 100 to 103), and ones whose arithmetic overflows
CREATE TABLE wa_edge (id int, g int, m numeric, a int, b int8, s int2);
INSERT INTO wa_edge VALUES
	(1, 0, 1.5, 1, 1, 1), (2, 0, 'NaN', 2, 2, 2), (3, 0, 2.25, 3, 3, 3),
	(4, 0, 'Infinity', 4, 4, 4), (5, 0, '-Infinity', 5, 5, 5), (6, 0, -0.000, 6, 6, 6),
	(7, 0, 99999999999999999999.99, 7, 7, 7), (8, 0, 1e-20, 8, 8, 8), (9, 0, 3, 9, 9, 9),
	(11, 1, 1, 2147483647, 4611686018427387904, 32767), (12, 1, 2, -2147483648, -9223372036854775808, -32768),
	(13, 1, 3, 100, 100, 100), (14, 1, NULL, NULL, NULL, NULL), (15, 1, 4.5, 5, 5, 5),
	(21, 2, 1, 1, 1, 1), (22, 2, NULL, NULL, 4611686018427387904, NULL), (23, 2, 2, 2, 2, 2);
ANALYZE wa_edge;

-- 1. expressions on threads: every row given by the threads
SELECT * FROM win_args($$SELECT id, sum(price * qty) OVER (PARTITION BY cat ORDER BY day, id) FROM wa_money$$);
SELECT * FROM win_args($$SELECT cat, day, sum(price * qty) OVER (PARTITION BY cat ORDER BY day) FROM wa_money ORDER BY 1, 2, 3$$);
SELECT * FROM win_args($$SELECT id, avg(price - fee) OVER w, sum(fee + m) OVER w, sum(-price) OVER w, min(price * 1.5) OVER w, max(m * m) OVER w, count(price * qty) OVER w FROM wa_money WINDOW w AS (PARTITION BY acct ORDER BY id)$$);
SELECT * FROM win_args($$SELECT id, sum(qty * 3) OVER w, sum(k8 * qty) OVER w, avg(s + qty) OVER w, sum(s * 3) OVER w, min(qty - s) OVER w, max(-k8) OVER w, sum((qty * 2)::int8 * 3) OVER w FROM wa_money WINDOW w AS (PARTITION BY cat ORDER BY id)$$);
-- casts: integers to numeric, numeric to integers (rounded half away from
-- zero), numeric(p, s) (rounded, then the precision checked)
SELECT * FROM win_args($$SELECT id, sum(qty::numeric * 1.25) OVER w, sum((price * 0.37)::int) OVER w, sum((m * 10)::int8) OVER w, sum((price * 0.333)::numeric(12,2)) OVER w, avg(m::numeric(10,1)) OVER w, sum(s::int8 * k8) OVER w FROM wa_money WINDOW w AS (PARTITION BY acct ORDER BY id)$$);
SELECT * FROM win_args($$SELECT id, sum(v::int) OVER w, sum(v::numeric(4,1)) OVER w, sum(v::int2) OVER w FROM (VALUES (1, 2.5), (2, -2.5), (3, 0.49), (4, -0.5), (5, 1.05), (6, -1.05), (7, 1.25), (8, 999.94)) x(id, v) WINDOW w AS (ORDER BY id)$$);
-- frames that slide, whole partitions, RANGE offsets; FILTER
SELECT * FROM win_args($$SELECT id, sum(price * qty) OVER w, avg(m * 3) OVER w, min(fee - m) OVER w, max(qty * 7) OVER w FROM wa_money WINDOW w AS (PARTITION BY cat ORDER BY id ROWS BETWEEN 3 PRECEDING AND 1 FOLLOWING)$$);
SELECT * FROM win_args($$SELECT id, price * qty / sum(price * qty) OVER (PARTITION BY acct) FROM wa_money ORDER BY id$$);
SELECT * FROM win_args($$SELECT id, avg(price * qty) OVER (PARTITION BY acct ORDER BY day RANGE BETWEEN '6 days' PRECEDING AND CURRENT ROW) FROM wa_money ORDER BY id$$);
SELECT * FROM win_args($$SELECT id, sum(price * qty) FILTER (WHERE s > 0) OVER w, count(m - 1) FILTER (WHERE qty < 5) OVER w FROM wa_money WINDOW w AS (PARTITION BY acct ORDER BY id)$$);
-- rows left to PostgreSQL: NaN and the infinities (the value's kind), a
-- NULL, a product past 2^95 or of scale past 38 (the window goes to
-- WindowAgg, as a column of such values does)
SELECT * FROM win_args($$SELECT id, sum(m * 2) OVER w, avg(m + 1) OVER w, min(-m) OVER w, max(m * a) OVER w FROM wa_edge WHERE g = 0 AND id < 7 WINDOW w AS (ORDER BY id)$$);
SELECT * FROM win_args($$SELECT id, sum(m * m) OVER w FROM wa_edge WHERE g = 0 AND id <> 8 WINDOW w AS (ORDER BY id)$$);
SELECT * FROM win_args($$SELECT id, sum(m * m) OVER w FROM wa_edge WHERE g = 0 AND id <> 7 AND id > 5 WINDOW w AS (ORDER BY id)$$);
SELECT * FROM win_args($$SELECT id, sum(m * 1e-19) OVER w FROM wa_edge WHERE g = 0 AND id > 5 WINDOW w AS (ORDER BY id)$$);
-- mixed scales: the sum's scale is the largest, a product's the sum of
-- its factors', a zero keeps its scale
SELECT * FROM win_args($$SELECT id, sum(v * w) OVER o, sum(v + w) OVER o, sum(v - w) OVER o FROM (VALUES (1, 1.5, 2), (2, 0.125, 0.10), (3, 0, 1.000), (4, -7, 0.0001), (5, 3.00, -3)) x(id, v, w) WINDOW o AS (ORDER BY id)$$);
-- errors at the row stock raises them at: int4, int8 and int2 overflows,
-- a numeric field overflow, a numeric too large for int4
SELECT * FROM win_error($$SELECT id, sum(a * 2) OVER (ORDER BY id) FROM wa_edge WHERE g = 1$$);
SELECT * FROM win_error($$SELECT id, sum(b * 2) OVER (ORDER BY id) FROM wa_edge WHERE g = 1$$);
SELECT * FROM win_error($$SELECT id, sum(-b) OVER (ORDER BY id) FROM wa_edge WHERE g = 1$$);
SELECT * FROM win_error($$SELECT id, sum(s + s) OVER (ORDER BY id) FROM wa_edge WHERE g = 1$$);
SELECT * FROM win_error($$SELECT id, sum(-a) OVER (ORDER BY id) FROM wa_edge WHERE g = 1$$);
SELECT * FROM win_error($$SELECT id, sum(a::int2) OVER (ORDER BY id) FROM wa_edge WHERE g = 1$$);
SELECT * FROM win_error($$SELECT id, sum((m * 1000)::numeric(4,1)) OVER (ORDER BY id) FROM wa_edge WHERE g = 1$$);
SELECT * FROM win_error($$SELECT id, sum((m * 1e12)::int) OVER (ORDER BY id) FROM wa_edge WHERE g = 1$$);
SELECT * FROM win_error($$SELECT id, sum(m::int) OVER (ORDER BY id) FROM wa_edge WHERE g = 0$$);
-- the rows before the failing one come back, as many as stock returns
SELECT * FROM win_args($$SELECT id, sum(a * 2) OVER (ORDER BY id DESC) FROM wa_edge WHERE g = 1 ORDER BY id DESC LIMIT 3$$);
SELECT * FROM win_error($$SELECT id, sum(a * 2) OVER (ORDER BY id DESC) FROM wa_edge WHERE g = 1 ORDER BY id DESC LIMIT 4$$);
-- a NULL operand: the other one is still evaluated (and may fail)
SELECT * FROM win_error($$SELECT id, sum(b * 2 + a) OVER (ORDER BY id) FROM wa_edge WHERE g = 2$$);
SELECT * FROM win_args($$SELECT id, sum(b + a) OVER (ORDER BY id), sum(m * a) OVER (ORDER BY id) FROM wa_edge WHERE g = 2$$);
-- what the threads do not compute: division, floats, functions; the
-- backend evaluates every row, as before
SELECT * FROM win_args($$SELECT id, sum(price / 3) OVER w, sum(qty % 7) OVER w, sum(abs(qty - 10)) OVER w FROM wa_money WINDOW w AS (PARTITION BY acct ORDER BY id)$$);

-- 2. RANGE offsets by arithmetic on the keys: dates and intervals of days
-- (the 7-day moving average), timestamps, timestamptz with intervals of
-- time, integers of each width; DESC, NULLS FIRST and LAST, NULL keys
CREATE TABLE wa_keys (id int, g int, d date, ts timestamp, tz timestamptz, i2 int2, i4 int, i8 int8, v numeric(10,2));
INSERT INTO wa_keys
SELECT i, i % 7,
	   CASE WHEN i % 41 = 0 THEN NULL ELSE date '2024-01-01' + abs(hashint4(i)) % 90 END,
	   CASE WHEN i % 43 = 0 THEN NULL ELSE timestamp '2024-01-01' + (abs(hashint4(i + 1)) % 8000000) * interval '1 second' END,
	   CASE WHEN i % 47 = 0 THEN NULL ELSE timestamptz '2024-03-25 00:00+00' + (abs(hashint4(i + 2)) % 900000) * interval '1 second' END,
	   CASE WHEN i % 53 = 0 THEN NULL ELSE hashint4(i + 3) % 1000 END,
	   CASE WHEN i % 59 = 0 THEN NULL ELSE hashint4(i + 4) % 100000 END,
	   CASE WHEN i % 61 = 0 THEN NULL ELSE hashint8(i + 5) % 10000000000 END,
	   (hashint4(i + 6) % 100000) / 100.0
  FROM generate_series(1, 2000) i;
ANALYZE wa_keys;
SELECT * FROM win_args($$SELECT id, avg(v) OVER w, count(*) OVER w, sum(v) OVER w, min(v) OVER w FROM wa_keys WINDOW w AS (PARTITION BY g ORDER BY d RANGE BETWEEN '6 days' PRECEDING AND CURRENT ROW) ORDER BY id$$);
SELECT * FROM win_args($$SELECT g, d, count(*) OVER w, sum(v) OVER w FROM wa_keys WINDOW w AS (PARTITION BY g ORDER BY d DESC NULLS LAST RANGE BETWEEN '3 days' PRECEDING AND '2 days' FOLLOWING) ORDER BY 1, 2, 3, 4$$);
SELECT * FROM win_args($$SELECT g, d, count(*) OVER w, max(v) OVER w FROM wa_keys WINDOW w AS (PARTITION BY g ORDER BY d NULLS FIRST RANGE BETWEEN '1 day' FOLLOWING AND '10 days 12:00' FOLLOWING) ORDER BY 1, 2, 3, 4$$);
SELECT * FROM win_args($$SELECT id, count(*) OVER w, sum(v) OVER w FROM wa_keys WINDOW w AS (PARTITION BY g ORDER BY ts RANGE BETWEEN '36 hours' PRECEDING AND '1 day 02:00' FOLLOWING) ORDER BY id$$);
SELECT * FROM win_args($$SELECT id, count(*) OVER w, sum(v) OVER w FROM wa_keys WINDOW w AS (ORDER BY ts DESC NULLS FIRST RANGE BETWEEN '2 days' PRECEDING AND '00:30' PRECEDING) ORDER BY id$$);
SELECT * FROM win_args($$SELECT id, count(*) OVER w, avg(v) OVER w FROM wa_keys WINDOW w AS (PARTITION BY g ORDER BY tz RANGE BETWEEN '5 hours' PRECEDING AND '00:00:01' FOLLOWING) ORDER BY id$$);
SELECT * FROM win_args($$SELECT id, count(*) OVER w, sum(i4) OVER w FROM wa_keys WINDOW w AS (PARTITION BY g ORDER BY i2 NULLS FIRST RANGE BETWEEN 10 PRECEDING AND 5 FOLLOWING) ORDER BY id$$);
SELECT * FROM win_args($$SELECT id, count(*) OVER w, sum(v) OVER w FROM wa_keys WINDOW w AS (PARTITION BY g ORDER BY i4 DESC RANGE BETWEEN 500 PRECEDING AND 200 FOLLOWING) ORDER BY id$$);
SELECT * FROM win_args($$SELECT id, count(*) OVER w, sum(v) OVER w FROM wa_keys WINDOW w AS (ORDER BY i8 RANGE BETWEEN 100000000::int8 PRECEDING AND 5000000000 FOLLOWING) ORDER BY id$$);
SELECT * FROM win_args($$SELECT id, count(*) OVER w FROM wa_keys WINDOW w AS (PARTITION BY g ORDER BY i4 RANGE BETWEEN UNBOUNDED PRECEDING AND 10::int2 PRECEDING) ORDER BY id$$);
SELECT * FROM win_args($$SELECT id, count(*) OVER w FROM wa_keys WINDOW w AS (PARTITION BY g ORDER BY i2 RANGE BETWEEN 3::int8 FOLLOWING AND UNBOUNDED FOLLOWING) ORDER BY id$$);
-- sums past the integer types' ends: in_range's overflow rule, which the
-- exact sum gives
SELECT * FROM win_args($$SELECT id, count(*) OVER w, sum(b) OVER w FROM wa_edge WINDOW w AS (ORDER BY a RANGE BETWEEN 10 PRECEDING AND 2147483647 FOLLOWING) ORDER BY id$$);
SELECT * FROM win_args($$SELECT id, count(*) OVER w FROM wa_edge WINDOW w AS (ORDER BY b DESC RANGE BETWEEN 9223372036854775807 PRECEDING AND 9223372036854775807 FOLLOWING) ORDER BY id$$);
SELECT * FROM win_args($$SELECT id, count(*) OVER w FROM wa_edge WINDOW w AS (ORDER BY s RANGE BETWEEN 32767::int2 PRECEDING AND 1 FOLLOWING) ORDER BY id$$);
-- left to the in_range functions: timestamptz with days (the time zone's
-- days), months, infinite keys, keys and bounds at the ends of timestamp's
-- range (the bound raises there: the window goes to WindowAgg, which
-- raises it), a negative offset
SELECT * FROM win_args($$SELECT id, count(*) OVER w FROM wa_keys WINDOW w AS (PARTITION BY g ORDER BY tz RANGE BETWEEN '1 day' PRECEDING AND CURRENT ROW) ORDER BY id$$);
SELECT * FROM win_args($$SELECT id, count(*) OVER w FROM wa_keys WINDOW w AS (PARTITION BY g ORDER BY d RANGE BETWEEN '1 month' PRECEDING AND CURRENT ROW) ORDER BY id$$);
CREATE TABLE wa_inf (id int, d date, ts timestamp);
INSERT INTO wa_inf VALUES (1, '-infinity', '-infinity'), (2, '2024-01-01', '2024-01-01'), (3, '2024-01-03', '2024-01-02 12:00'),
	(4, 'infinity', 'infinity'), (5, NULL, NULL), (6, '2024-01-02', '2024-01-02');
SELECT * FROM win_args($$SELECT id, count(*) OVER w FROM wa_inf WINDOW w AS (ORDER BY d RANGE BETWEEN '1 day' PRECEDING AND '1 day' FOLLOWING)$$);
SELECT * FROM win_args($$SELECT id, count(*) OVER w FROM wa_inf WINDOW w AS (ORDER BY ts DESC RANGE BETWEEN '1 day' PRECEDING AND CURRENT ROW)$$);
SELECT * FROM win_args($$SELECT id, count(*) OVER w FROM (VALUES (1, timestamp '294276-12-31 20:00'), (2, '294276-12-31 23:00')) x(id, t) WINDOW w AS (ORDER BY t RANGE BETWEEN CURRENT ROW AND '00:30' FOLLOWING)$$);
SELECT * FROM win_error($$SELECT id, count(*) OVER w FROM (VALUES (1, timestamp '294276-12-31 20:00'), (2, '294276-12-31 23:00')) x(id, t) WINDOW w AS (ORDER BY t RANGE BETWEEN CURRENT ROW AND '2 hours' FOLLOWING)$$);
SELECT * FROM win_error($$SELECT id, count(*) OVER w FROM (VALUES (1, date '4714-11-24 BC'), (2, '4714-11-25 BC')) x(id, t) WINDOW w AS (ORDER BY t RANGE BETWEEN '1 day' PRECEDING AND CURRENT ROW)$$);
SELECT * FROM win_error($$SELECT id, count(*) OVER w FROM wa_keys WINDOW w AS (ORDER BY d RANGE BETWEEN '-1 day' PRECEDING AND CURRENT ROW)$$);

-- 3. numeric sums and averages made as bytes on threads: the same bytes
-- as numeric.c's (numeric_send shows the digits and the weight, a short
-- header is 2 bytes shorter than a long one), zero, negative values,
-- large weights and scales, and what the backend still makes (NaN,
-- the infinities, averages past scale 32)
SELECT * FROM win_args($$SELECT id, numeric_send(sum(v) OVER w), pg_column_size(sum(v) OVER w), numeric_send(avg(v) OVER w), pg_column_size(avg(v) OVER w) FROM (VALUES (1, 0.00), (2, -0.50), (3, 0.5), (4, 1234567890123456789.5), (5, -1234567890123456789.5), (6, 1e-12), (7, 0.000001), (8, 10000), (9, 99999999.9999), (10, -3)) x(id, v) WINDOW w AS (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)$$);
SELECT * FROM win_args($$SELECT id, numeric_send(sum(v) OVER w), pg_column_size(sum(v) OVER w), numeric_send(avg(v) OVER w) FROM (VALUES (1, 1e12), (2, 1e-12), (3, 'NaN'), (4, 7), (5, 'Infinity'), (6, 2.5)) x(id, v) WINDOW w AS (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)$$);
SELECT * FROM win_args($$SELECT id, numeric_send(sum(v) OVER w), pg_column_size(sum(v) OVER w), numeric_send(avg(v) OVER w), pg_column_size(avg(v) OVER w) FROM (SELECT i AS id, (hashint4(i) % 100000000) / 10.0 ^ (i % 9) AS v FROM generate_series(1, 500) i) x WINDOW w AS (ORDER BY id ROWS BETWEEN 3 PRECEDING AND CURRENT ROW)$$);
SELECT * FROM win_args($$SELECT id, numeric_send(avg(price) OVER w), numeric_send(sum(price * qty) OVER w), numeric_send(avg(m) OVER w) FROM wa_money WINDOW w AS (PARTITION BY acct ORDER BY day RANGE BETWEEN '6 days' PRECEDING AND CURRENT ROW) ORDER BY id$$);

-- 4. output expressions of a numeric sum or avg and the row, computed on
-- threads: a share of the whole, deviations, products; NULLs, a division
-- by zero and NaN evaluated by PostgreSQL at the row stock raises at;
-- expressions whose place among the row's other expressions matters stay
-- with the projection
SELECT * FROM win_args($$SELECT id, price / sum(price) OVER (PARTITION BY acct) FROM wa_money ORDER BY id$$);
-- the guarded share, amount / nullif(sum(amount) OVER w, 0): on threads, a
-- zero total NULL; nullif of another constant stays the backend's
SELECT * FROM win_args($$SELECT id, price / nullif(sum(price) OVER (PARTITION BY acct), 0), nullif(avg(m) OVER (PARTITION BY acct), 0) * fee FROM wa_money ORDER BY id$$);
SELECT * FROM win_args($$SELECT id, m / nullif(sum(m) OVER (PARTITION BY g), 0), nullif(sum(m) OVER (PARTITION BY g), 0.0) - m FROM (VALUES (1, 1, 1.5), (2, 1, -1.5), (3, 2, 2.0), (4, 3, NULL), (5, 4, 'NaN'), (6, 4, 1)) x(id, g, m) ORDER BY id$$);
SELECT * FROM win_args($$SELECT id, m + nullif(sum(m) OVER (PARTITION BY g), 2) FROM (VALUES (1, 1, 1.5), (2, 1, -1.5), (3, 2, 2.0), (4, 3, NULL), (5, 4, 'NaN'), (6, 4, 1)) x(id, g, m) ORDER BY id$$);
SELECT * FROM win_args($$SELECT id, price * qty / sum(price * qty) OVER (PARTITION BY acct), m - avg(m) OVER (PARTITION BY acct), avg(m) OVER (PARTITION BY acct) + fee, 2.5 * sum(fee) OVER (PARTITION BY acct) FROM wa_money ORDER BY id$$);
SELECT * FROM win_args($$SELECT id, sum(price) OVER w / price, price - sum(price) OVER w FROM wa_money WINDOW w AS (PARTITION BY cat ORDER BY day, id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) ORDER BY id$$);
SELECT * FROM win_args($$SELECT id, numeric_send(s), pg_column_size(s), numeric_send(a), pg_column_size(a) FROM (SELECT id, price / sum(price) OVER w AS s, m / avg(m) OVER w AS a FROM wa_money WINDOW w AS (PARTITION BY acct ORDER BY id)) x ORDER BY id$$);
SELECT * FROM win_args($$SELECT id, m / sum(m) OVER (ORDER BY id), sum(m) OVER (ORDER BY id) / m FROM wa_edge WHERE g = 0 AND id < 7$$);
SELECT * FROM win_error($$SELECT id, m / sum(m) OVER (PARTITION BY g) FROM (VALUES (1, 1, 1.5), (2, 1, -1.5), (3, 2, 2.0)) x(id, g, m)$$);
SELECT * FROM win_error($$SELECT id, 1 / (sum(m) OVER (ORDER BY id) - m) FROM (VALUES (1, 0.0), (2, 2.0), (3, 1.0)) x(id, m)$$);
-- rounded for a report: round(e, s) and numeric(p, s) around such an
-- expression, on threads (half away from zero, after numeric_div's own
-- rounding, the result at scale s even where the quotient had fewer
-- places); a value past numeric(p, s)'s precision raises apply_typmod's
-- error at stock's row; the cast's typmod types a CTAS's column
SELECT * FROM win_args($$SELECT id, round(100.0 * price / sum(price) OVER (PARTITION BY acct), 4), round(m / nullif(sum(m) OVER (PARTITION BY acct), 0), 2), round(price - avg(price) OVER (PARTITION BY acct)) FROM wa_money ORDER BY id$$);
SELECT * FROM win_args($$SELECT id, numeric_send(a), numeric_send(b), numeric_send(c), numeric_send(d) FROM (SELECT id, round(v / sum(v) OVER w, 2) AS a, round(v * sum(v) OVER w, 0) AS b, round(v / sum(v) OVER w, 30) AS c, (v / sum(v) OVER w)::numeric(5, 3) AS d FROM (VALUES (1, 1, 0.125), (2, 1, 0.875), (3, 2, -0.125), (4, 2, -0.875), (5, 3, 0.005), (6, 3, 0.995), (7, 4, 2.5), (8, 4, -1.5), (9, 5, 0), (10, 5, 1)) x(id, g, v) WINDOW w AS (PARTITION BY g)) y ORDER BY id$$);
SELECT * FROM win_args($$SELECT id, (100 * price / sum(price) OVER (PARTITION BY cat))::numeric(7, 3), round(fee * avg(m) OVER (PARTITION BY cat), 1) FROM wa_money ORDER BY id$$);
SELECT * FROM win_error($$SELECT id, (m / sum(m) OVER (PARTITION BY g))::numeric(3, 2) FROM (VALUES (1, 1, 1.5), (2, 1, 0.5), (3, 2, 250.0), (4, 2, -240.0)) x(id, g, m) ORDER BY id$$);
CREATE TABLE wa_ctas AS SELECT id, (price / sum(price) OVER (PARTITION BY acct))::numeric(9, 4) AS share, round(price / sum(price) OVER (PARTITION BY acct), 3) AS r FROM wa_money;
SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'wa_ctas'::regclass AND attnum > 0 ORDER BY attnum;
DROP TABLE wa_ctas;
-- the change from the row before, amount - lag(amount) OVER w, and other
-- rows' values (lead, offsets, a default) with the row's: on threads, the
-- other row read there; NULL past the partition's ends and for NULL
-- values; a default, NaN, infinities, values past 128 bits and a division
-- by zero the backend's (at stock's row); lag's own column still returned
-- where the projection reads it
SELECT * FROM win_args($$SELECT id, acct, price - lag(price) OVER w, m - lag(m, 2) OVER w, lead(m) OVER w * qty, price + lead(price, 3) OVER w FROM wa_money WINDOW w AS (PARTITION BY acct ORDER BY day, id) ORDER BY id$$);
SELECT * FROM win_args($$SELECT id, lag(m) OVER w, m - lag(m) OVER w, lag(m, 1, 10.5) OVER w - m FROM wa_edge WINDOW w AS (ORDER BY id)$$);
SELECT * FROM win_args($$SELECT id, numeric_send(d), numeric_send(p) FROM (SELECT id, m - lag(m) OVER w AS d, lead(price, 2) OVER w * fee AS p FROM wa_money WINDOW w AS (PARTITION BY cat ORDER BY ts, id)) x ORDER BY id$$);
SELECT * FROM win_args($$SELECT id, m - lag(m, 0) OVER w, m / nullif(lag(m) OVER w, 0), lag(m, 1, NULL) OVER w - m FROM wa_edge WINDOW w AS (PARTITION BY g ORDER BY id)$$);
SELECT * FROM win_error($$SELECT id, m / lag(m) OVER (ORDER BY id) FROM (VALUES (1, 1.5), (2, 0.0), (3, 2.0), (4, 1.0)) x(id, m)$$);
-- coalesce(e, c) around them: the first row's change 0, a NULL share c; a
-- NULL constant or a second expression stays the backend's
SELECT * FROM win_args($$SELECT id, coalesce(price - lag(price) OVER w, 0), coalesce(lead(m) OVER w * qty, 0.00) FROM wa_money WINDOW w AS (PARTITION BY acct ORDER BY day, id) ORDER BY id$$);
SELECT * FROM win_args($$SELECT id, coalesce(round(m / nullif(sum(m) OVER (PARTITION BY acct), 0), 3), -1.5) FROM wa_money ORDER BY id$$);
SELECT * FROM win_args($$SELECT id, numeric_send(c) FROM (SELECT id, coalesce(m - lag(m) OVER (ORDER BY id), 0.000) AS c FROM wa_edge) x ORDER BY id$$);
SELECT * FROM win_args($$SELECT id, coalesce(m - lag(m) OVER w, NULL), coalesce(m - lag(m) OVER w, m) FROM wa_edge WINDOW w AS (PARTITION BY g ORDER BY id)$$);
-- quotients whose operands' first base-10000 digits sit at powers of ten
-- (select_div_scale's weights)
SELECT * FROM win_args($$SELECT id, numeric_send(q), numeric_send(r) FROM (SELECT id, v / sum(v) OVER (PARTITION BY g) AS q, sum(v) OVER (PARTITION BY g) / v AS r FROM (VALUES (1, 1, 9999.99), (2, 1, 10000), (3, 2, 0.0001), (4, 2, 99999999), (5, 3, 100000000), (6, 3, 1), (7, 4, 0.9999), (8, 4, 9999), (9, 5, -1000), (10, 5, 10), (11, 6, 999.5), (12, 6, 0.5)) x(id, g, v)) y ORDER BY id$$);
-- values of many magnitudes and scales, their quotients' and products'
-- bytes
SELECT * FROM win_args($$WITH x AS MATERIALIZED (SELECT i AS id, i % 97 AS g, round((1 + abs(hashint8(i)) % (10::numeric ^ (1 + i % 17))) / (10::numeric ^ (i % 11)), i % 11) * (1 - 2 * (i % 3 / 2)) AS v FROM generate_series(1, 20000) i) SELECT id, numeric_send(q), numeric_send(r), numeric_send(p) FROM (SELECT id, v / sum(v) OVER w AS q, sum(v) OVER w / v AS r, v * avg(v) OVER w AS p FROM x WINDOW w AS (PARTITION BY g)) y ORDER BY id$$);
SELECT * FROM win_args($$SELECT id, m / sum(m) OVER (ORDER BY id), m * sum(m) OVER (ORDER BY id) FROM (VALUES (1, 3.0), (2, 1e-30), (3, 7), (4, NULL), (5, -1e-31)) x(id, m)$$);
-- an operand that is an aggregate's argument column is read from the
-- aggregate's arguments, every row's, FILTER or not; another column by
-- its program
SELECT * FROM win_args($$SELECT id, price / sum(price) FILTER (WHERE qty > 5) OVER w, m - avg(m) FILTER (WHERE s > 0) OVER w, fee * sum(price) FILTER (WHERE qty > 5) OVER w FROM wa_money WINDOW w AS (PARTITION BY acct) ORDER BY id$$);
SELECT * FROM win_error($$SELECT id, 1 / (qty - 5), price / sum(price) OVER (PARTITION BY acct) FROM wa_money$$);
SELECT * FROM win_args($$SELECT id, price / sum(price) OVER (PARTITION BY acct), qty / (qty - 5) FROM wa_money WHERE qty <> 5 ORDER BY id$$);
SELECT * FROM win_args($$SELECT * FROM (SELECT id, price / sum(price) OVER (PARTITION BY acct) AS s FROM wa_money) x WHERE s > 0.01 ORDER BY id$$);

-- 5. variance and stddev of integers: numeric results, numeric.c's digits
-- and scales (N * sumX2 - sumX^2 exactly, divided at select_div_scale's
-- scale, the square root of that rounded); frames that grow and slide;
-- one row, equal rows (zero), NULLs; int8 squares past 128 bits
-- (WindowAgg)
SELECT * FROM win_args($$SELECT id, var_pop(qty) OVER w, var_samp(s) OVER w, variance(k8) OVER w, stddev_pop(qty) OVER w, stddev_samp(s) OVER w, stddev(k8) OVER w FROM wa_money WINDOW w AS (PARTITION BY acct ORDER BY id)$$);
SELECT * FROM win_args($$SELECT id, numeric_send(var_pop(qty) OVER w), numeric_send(stddev_samp(s) OVER w), pg_column_size(stddev(k8) OVER w) FROM wa_money WINDOW w AS (PARTITION BY cat ORDER BY id ROWS BETWEEN 3 PRECEDING AND 2 FOLLOWING)$$);
SELECT * FROM win_args($$SELECT cat, day, stddev_samp(qty) OVER w, var_samp(qty * 3) OVER w FROM wa_money WINDOW w AS (PARTITION BY cat ORDER BY day RANGE BETWEEN '3 days' PRECEDING AND CURRENT ROW) ORDER BY 1, 2, 3, 4$$);
SELECT * FROM win_args($$SELECT id, var_samp(v) OVER w, stddev_pop(v) OVER w, stddev_samp(v) OVER w FROM (VALUES (1, 5), (2, 5), (3, NULL), (4, 5), (5, -7), (6, 2147483647), (7, -2147483648), (8, 0)) x(id, v) WINDOW w AS (ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)$$);
SELECT * FROM win_args($$SELECT id, stddev(v) OVER w, var_pop(v) OVER w FROM (VALUES (1, 1::int8), (2, 3037000499), (3, 2), (4, -5)) x(id, v) WINDOW w AS (ORDER BY id)$$);
SELECT * FROM win_args($$SELECT id, stddev(v) OVER w FROM (VALUES (1, 9223372036854775807), (2, -9223372036854775807), (3, 4)) x(id, v) WINDOW w AS (ORDER BY id)$$);

-- 6. EXCLUDE CURRENT ROW, GROUP and TIES: counts, sums, averages and
-- integer statistics over frames that grow, slide, span the partition,
-- RANGE and GROUPS offsets; peers of many rows; FILTER.  Arguments that
-- may raise keep WindowAgg.  (min, max, the float aggregates and the value
-- functions: 7.)
SELECT * FROM win_args($$SELECT id, count(*) OVER w, count(price) OVER w, sum(price) OVER w, avg(m) OVER w, sum(qty) OVER w, avg(k8) OVER w, var_samp(qty) OVER w FROM wa_money WINDOW w AS (PARTITION BY acct ORDER BY id ROWS BETWEEN 3 PRECEDING AND 2 FOLLOWING EXCLUDE CURRENT ROW)$$);
SELECT * FROM win_args($$SELECT cat, day, count(*) OVER w, sum(price) OVER w, avg(m) OVER w, stddev_pop(s) OVER w FROM wa_money WINDOW w AS (PARTITION BY cat ORDER BY day RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW EXCLUDE GROUP) ORDER BY 1, 2, 3, 4, 5, 6$$);
SELECT * FROM win_args($$SELECT cat, day, count(*) OVER w, sum(m) OVER w, avg(qty) OVER w FROM wa_money WINDOW w AS (PARTITION BY cat ORDER BY day RANGE BETWEEN '6 days' PRECEDING AND CURRENT ROW EXCLUDE TIES) ORDER BY 1, 2, 3, 4, 5$$);
SELECT * FROM win_args($$SELECT acct, day, count(*) OVER w, sum(price) OVER w FROM wa_money WINDOW w AS (PARTITION BY acct ORDER BY day GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE GROUP) ORDER BY 1, 2, 3, 4$$);
SELECT * FROM win_args($$SELECT id, count(*) OVER w, sum(m) OVER w, avg(price) OVER w FROM wa_money WINDOW w AS (PARTITION BY cat ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE CURRENT ROW)$$);
SELECT * FROM win_args($$SELECT cat, count(*) OVER w, sum(m) OVER w, avg(price) OVER w FROM wa_money WINDOW w AS (PARTITION BY cat ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE TIES) ORDER BY 1, 2, 3, 4$$);
SELECT * FROM win_args($$SELECT id, count(*) OVER w, sum(v) OVER w, avg(v) OVER w FROM (VALUES (1, 1, 1.5), (2, 1, 2.25), (3, 1, NULL), (4, 2, 'NaN'), (5, 2, 1.125), (6, 3, 7)) x(id, g, v) WINDOW w AS (ORDER BY g RANGE BETWEEN 1 PRECEDING AND CURRENT ROW EXCLUDE CURRENT ROW)$$);
SELECT * FROM win_args($$SELECT id, sum(price) FILTER (WHERE qty > 5) OVER w, count(*) FILTER (WHERE qty > 3) OVER w, avg(qty) FILTER (WHERE s > 0) OVER w FROM wa_money WINDOW w AS (PARTITION BY acct ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW EXCLUDE CURRENT ROW)$$);
SELECT * FROM win_args($$SELECT id, min(price) OVER w FROM wa_money WINDOW w AS (PARTITION BY acct ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW EXCLUDE CURRENT ROW)$$);
SELECT * FROM win_args($$SELECT id, first_value(id) OVER w, row_number() OVER w FROM wa_money WINDOW w AS (PARTITION BY acct ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW EXCLUDE CURRENT ROW)$$);
SELECT * FROM win_args($$SELECT id, sum(qty * 2) OVER w FROM wa_money WINDOW w AS (PARTITION BY acct ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW EXCLUDE CURRENT ROW)$$);
SELECT * FROM win_args($$SELECT id, rank() OVER w, sum(price) OVER w, dense_rank() OVER w FROM wa_money WINDOW w AS (PARTITION BY acct ORDER BY day, id % 2 RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING EXCLUDE TIES) ORDER BY id$$);

-- 7. EXCLUDE for min, max, the float sums and statistics (each frame
-- computed afresh, as WindowAgg does) and first_value, last_value and
-- nth_value (WindowAgg's step past the excluded rows, NULL where it
-- lands outside the frame).  Rows of one base b are copies alike in every
-- column but id, and a key k (NULL for b % 50 = 0, whose rows are alike
-- too) tells base rows apart, so that peers' order, which the sorts may
-- give differently, changes no result the queries read.  f: float8 with
-- NULL, NaN, -0, the infinities and eighths (sums exact in any order);
-- r4: real; v: int4; n: numeric of scales 0 to 2.
CREATE TABLE wa_ex (id int, g int, k int, f float8, r4 real, v int, n numeric);
INSERT INTO wa_ex
SELECT b * 10 + c, b % 7, CASE WHEN b % 50 = 0 THEN NULL ELSE b END,
	   CASE WHEN b % 50 = 0 THEN 1.5 WHEN b % 11 = 0 THEN NULL
			WHEN b % 29 = 0 THEN 'NaN' WHEN b % 31 = 0 THEN '-0'
			WHEN b % 37 = 0 THEN 'Infinity' WHEN b % 41 = 0 THEN '-Infinity'
			WHEN b % 43 = 0 THEN 0 ELSE (hashint4(b) % 10000) / 8.0 END,
	   CASE WHEN b % 50 = 0 THEN 2 ELSE ((hashint4(b + 1) % 1000) / 3.0)::real END,
	   CASE WHEN b % 50 = 0 THEN 7 WHEN b % 13 = 0 THEN NULL ELSE hashint4(b + 2) % 100 END,
	   CASE WHEN b % 50 = 0 THEN 3.25 WHEN b % 17 = 0 THEN NULL
			ELSE round((hashint4(b + 3) % 100000) / 100.0, b % 3) END
  FROM generate_series(1, 700) b, generate_series(1, 1 + b % 3) c;
ANALYZE wa_ex;
-- rows in a unique order: ROWS frames around, after and before the row,
-- past the partition's ends, empty, DESC
SELECT * FROM win_args($$SELECT id, min(f) OVER w, max(f) OVER w, avg(f) OVER w, stddev(f) OVER w, var_pop(r4) OVER w, sum(r4) OVER w, min(v) OVER w, max(n) OVER w, first_value(n) OVER w, last_value(f) OVER w, nth_value(v, 2) OVER w, nth_value(id, 5) OVER w FROM wa_ex WINDOW w AS (PARTITION BY g ORDER BY id ROWS BETWEEN 3 PRECEDING AND 2 FOLLOWING EXCLUDE CURRENT ROW)$$);
SELECT * FROM win_args($$SELECT id, min(f) OVER w, max(r4) OVER w, avg(f) OVER w, stddev_samp(f) OVER w, max(v) OVER w, min(n) OVER w, first_value(id) OVER w, last_value(id) OVER w, nth_value(id, 3) OVER w FROM wa_ex WINDOW w AS (PARTITION BY g ORDER BY id ROWS BETWEEN 1 FOLLOWING AND 3 FOLLOWING EXCLUDE CURRENT ROW)$$);
SELECT * FROM win_args($$SELECT id, min(f) OVER w, avg(r4) OVER w, variance(f) OVER w, max(n) OVER w, first_value(id) OVER w, last_value(id) OVER w, nth_value(id, 2) OVER w FROM wa_ex WINDOW w AS (PARTITION BY g ORDER BY id DESC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW EXCLUDE CURRENT ROW)$$);
SELECT * FROM win_args($$SELECT id, max(f) OVER w, avg(f) OVER w, min(n) OVER w, first_value(id) OVER w, last_value(id) OVER w, nth_value(id, 2) OVER w FROM wa_ex WINDOW w AS (PARTITION BY g ORDER BY id ROWS BETWEEN 4 PRECEDING AND 2 PRECEDING EXCLUDE TIES)$$);
SELECT * FROM win_args($$SELECT id, min(f) OVER w, sum(f) OVER w, max(v) OVER w, first_value(id) OVER w, last_value(id) OVER w, nth_value(id, 7) OVER w FROM wa_ex WINDOW w AS (PARTITION BY g ORDER BY id ROWS BETWEEN 5 PRECEDING AND 40 FOLLOWING EXCLUDE GROUP)$$);
SELECT * FROM win_args($$SELECT id, min(f) OVER w, avg(f) OVER w, first_value(id) OVER w, last_value(id) OVER w FROM wa_ex WINDOW w AS (PARTITION BY g ORDER BY id ROWS BETWEEN 2 FOLLOWING AND 1 FOLLOWING EXCLUDE CURRENT ROW)$$);
SELECT * FROM win_args($$SELECT id, min(f) OVER w, max(n) OVER w, stddev_pop(f) OVER w, first_value(id) OVER w, last_value(id) OVER w, nth_value(id, 100) OVER w FROM wa_ex WINDOW w AS (PARTITION BY g ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE CURRENT ROW)$$);
-- peers (copies), NULL keys first and last: RANGE, GROUPS and partition
-- frames under each EXCLUDE
SELECT * FROM win_args($$SELECT g, k, min(f) OVER w, max(f) OVER w, avg(f) OVER w, sum(f) OVER w, stddev(f) OVER w, avg(r4) OVER w, min(v) OVER w, max(n) OVER w, first_value(f) OVER w, last_value(n) OVER w, nth_value(v, 3) OVER w FROM wa_ex WINDOW w AS (PARTITION BY g ORDER BY k RANGE BETWEEN 60 PRECEDING AND 30 FOLLOWING EXCLUDE GROUP)$$);
SELECT * FROM win_args($$SELECT g, k, min(f) OVER w, max(f) OVER w, avg(f) OVER w, var_samp(f) OVER w, max(r4) OVER w, min(n) OVER w, first_value(f) OVER w, last_value(n) OVER w, nth_value(v, 2) OVER w, nth_value(k, 4) OVER w FROM wa_ex WINDOW w AS (PARTITION BY g ORDER BY k DESC NULLS LAST RANGE BETWEEN 60 PRECEDING AND 30 FOLLOWING EXCLUDE TIES)$$);
SELECT * FROM win_args($$SELECT g, k, min(f) OVER w, max(v) OVER w, avg(f) OVER w, stddev_samp(r4) OVER w, first_value(k) OVER w, last_value(k) OVER w, nth_value(k, 2) OVER w, nth_value(f, 3) OVER w FROM wa_ex WINDOW w AS (PARTITION BY g ORDER BY k GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE TIES)$$);
SELECT * FROM win_args($$SELECT g, k, min(f) OVER w, max(n) OVER w, avg(f) OVER w, first_value(k) OVER w, last_value(k) OVER w, nth_value(k, 2) OVER w FROM wa_ex WINDOW w AS (PARTITION BY g ORDER BY k GROUPS BETWEEN 2 PRECEDING AND CURRENT ROW EXCLUDE GROUP)$$);
SELECT * FROM win_args($$SELECT g, k, min(f) OVER w, max(f) OVER w, avg(f) OVER w, variance(f) OVER w, min(n) OVER w, first_value(k) OVER w, last_value(k) OVER w, nth_value(k, 3) OVER w FROM wa_ex WINDOW w AS (PARTITION BY g ORDER BY k NULLS FIRST RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW EXCLUDE CURRENT ROW)$$);
SELECT * FROM win_args($$SELECT g, k, min(f) OVER w, max(f) OVER w, avg(f) OVER w, max(v) OVER w, first_value(k) OVER w, last_value(k) OVER w, nth_value(k, 2) OVER w FROM wa_ex WINDOW w AS (PARTITION BY g ORDER BY k RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING EXCLUDE TIES)$$);
SELECT * FROM win_args($$SELECT g, k, min(f) OVER w, avg(f) OVER w, min(n) OVER w, first_value(k) OVER w, last_value(k) OVER w, nth_value(k, 2) OVER w FROM wa_ex WINDOW w AS (PARTITION BY g ORDER BY k ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE GROUP)$$);
-- ROWS offsets over peers: the frame cuts the current row's peers, where
-- WindowAgg's one step past them lands outside the frame (NULL)
SELECT * FROM win_args($$SELECT g, k, min(f) OVER w, avg(f) OVER w, max(n) OVER w, first_value(k) OVER w, last_value(k) OVER w, nth_value(k, 2) OVER w FROM wa_ex WINDOW w AS (PARTITION BY g ORDER BY k ROWS BETWEEN 1 FOLLOWING AND 3 FOLLOWING EXCLUDE TIES)$$);
SELECT * FROM win_args($$SELECT g, k, max(f) OVER w, stddev(f) OVER w, first_value(k) OVER w, last_value(k) OVER w, nth_value(k, 2) OVER w FROM wa_ex WINDOW w AS (PARTITION BY g ORDER BY k ROWS BETWEEN 3 PRECEDING AND 1 PRECEDING EXCLUDE TIES)$$);
SELECT * FROM win_args($$SELECT g, k, min(v) OVER w, avg(r4) OVER w, first_value(k) OVER w, last_value(k) OVER w, nth_value(k, 3) OVER w FROM wa_ex WINDOW w AS (PARTITION BY g ORDER BY k DESC ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING EXCLUDE GROUP)$$);
-- no ORDER BY: every row of the partition is a peer
SELECT * FROM win_args($$SELECT id, min(f) OVER w, max(n) OVER w, avg(f) OVER w, stddev(f) OVER w, first_value(id) OVER w, last_value(id) OVER w, nth_value(id, 1) OVER w FROM wa_ex WINDOW w AS (PARTITION BY g ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE TIES) ORDER BY 1$$);
SELECT * FROM win_args($$SELECT id, min(f) OVER w, avg(f) OVER w, first_value(id) OVER w, nth_value(id, 2) OVER w FROM wa_ex WINDOW w AS (PARTITION BY g ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE GROUP) ORDER BY 1$$);
-- numerics of one value at different scales: min and max keep the newer
SELECT * FROM win_args($$SELECT i, min(x) OVER w, max(x) OVER w, min(y) OVER w, max(y) OVER w FROM (VALUES (1, 1.0, '0'::float8), (2, 1.00, '-0'), (3, 1, '0'), (4, 1.000, '-0'), (5, NULL, NULL), (6, 'NaN', 'NaN')) v(i, x, y) WINDOW w AS (ORDER BY i ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING EXCLUDE CURRENT ROW)$$);
-- an overflow of float8_accum, at the row whose frame has both large values
SELECT * FROM win_error($$SELECT i, avg(x) OVER (ORDER BY i ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE CURRENT ROW) FROM (VALUES (1, 1e308::float8), (2, 1), (3, 1e308), (4, 2)) v(i, x)$$);
SELECT * FROM win_error($$SELECT i, avg(x) OVER (ORDER BY i ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE CURRENT ROW) FROM (VALUES (1, 1e308::float8), (2, 1), (3, 1), (4, 1e308)) v(i, x)$$);
-- a frame whose start moves, wider than GSW_MAX_RESTART_ROWS: computed
-- afresh all the same (WindowAgg too computes every row's frame), unlike
-- a float sum's without EXCLUDE, which slides and keeps WindowAgg there
SELECT * FROM win_args($$SELECT id, min(f) OVER w, avg(f) OVER w FROM wa_ex WINDOW w AS (ORDER BY id ROWS BETWEEN 2000 PRECEDING AND CURRENT ROW EXCLUDE CURRENT ROW)$$);
SELECT * FROM win_args($$SELECT id, avg(f) OVER w FROM wa_ex WINDOW w AS (ORDER BY id ROWS BETWEEN 2000 PRECEDING AND CURRENT ROW)$$);
