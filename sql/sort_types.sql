-- GpuSort against stock Sort, every key type: NULLs, duplicates, DESC,
-- NULLS FIRST/LAST, -0/+0, NaN, infinities, empty strings and long strings
-- that share a 40-byte prefix; C and ICU collations; several columns; and
-- 400 random combinations of them.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS gpusort;
RESET client_min_messages;
LOAD 'gpusort';
SET gpusort.min_rows = 0;
-- gs_check(q) and explain_masked(q), shared by the sort tests: test/sort/sql/gs_check.sql
\getenv abs_srcdir PG_ABS_SRCDIR
\set gs_check_sql :abs_srcdir '/test/sort/sql/gs_check.sql'
\set ECHO none
\i :gs_check_sql
\set ECHO all

CREATE TABLE ty (
	id int, i2 int2, i4 int4, i8 int8, f4 float4, f8 float8, b bool,
	d date, ts timestamp, tz timestamptz, u uuid, n numeric,
	t text, vc varchar(80), bp char(12), by bytea);

-- deterministic pseudo-random rows; NULLs at different rates per column
INSERT INTO ty
SELECT i,
	   CASE WHEN i % 17 = 0 THEN NULL ELSE (hashint4(i) % 300)::int2 END,
	   CASE WHEN i % 19 = 0 THEN NULL ELSE hashint4(i) % 100000 END,
	   CASE WHEN i % 23 = 0 THEN NULL WHEN i % 3 = 0 THEN hashint8(i) ELSE hashint8(i) % 1000 END,
	   CASE WHEN i % 13 = 0 THEN NULL ELSE ((hashint4(i) % 1000) / 7.0)::float4 END,
	   CASE WHEN i % 11 = 0 THEN NULL ELSE (hashint4(i + 1) % 100000) / 13.0 END,
	   CASE WHEN i % 7 = 0 THEN NULL ELSE hashint4(i) % 2 = 0 END,
	   CASE WHEN i % 29 = 0 THEN NULL ELSE date '2000-01-01' + hashint4(i) % 20000 END,
	   CASE WHEN i % 31 = 0 THEN NULL ELSE timestamp '2000-01-01' + (hashint4(i) % 100000) * interval '1 minute' END,
	   CASE WHEN i % 37 = 0 THEN NULL ELSE timestamptz '2000-01-01 00:00+00' + (hashint8(i) % 1000000000) * interval '1 second' END,
	   CASE WHEN i % 41 = 0 THEN NULL ELSE md5((i % 500)::text)::uuid END,
	   CASE WHEN i % 43 = 0 THEN NULL ELSE round((hashint4(i) % 1000000)::numeric / 1000, i % 5) END,
	   CASE WHEN i % 47 = 0 THEN NULL
			WHEN i % 5 = 0 THEN md5(i::text)
			WHEN i % 5 = 1 THEN repeat('shared-prefix-', 3) || (i % 50)
			WHEN i % 5 = 2 THEN ''
			WHEN i % 5 = 3 THEN substr(md5(i::text), 1, i % 9)
			ELSE (ARRAY['é', 'e', 'E', 'z', 'Z', 'ä', 'a', '日本', 'ß'])[1 + i % 9] || (i % 7) END,
	   CASE WHEN i % 53 = 0 THEN NULL ELSE repeat('v', i % 45) || (i % 10) END,
	   CASE WHEN i % 59 = 0 THEN NULL WHEN i % 2 = 0 THEN substr(md5(i::text), 1, i % 6) ELSE 'ab' END,
	   CASE WHEN i % 61 = 0 THEN NULL ELSE decode(substr(md5(i::text), 1, 2 * (i % 6)), 'hex') END
  FROM generate_series(1, 3000) i;

-- edge values
INSERT INTO ty (id, i2, i4, i8, f4, f8, d, ts, tz, n, t, vc, bp, by) VALUES
	(10001, -32768, -2147483648, -9223372036854775808, '-Infinity', '-Infinity', '-infinity', '-infinity', '-infinity', '-Infinity', '', '', '', '\x'),
	(10002, 32767, 2147483647, 9223372036854775807, 'Infinity', 'Infinity', 'infinity', 'infinity', 'infinity', 'Infinity', ' ', ' ', ' ', '\x00'),
	(10003, 0, 0, 0, 'NaN', 'NaN', '2000-01-01', '2000-01-01', '2000-01-01 00:00+00', 'NaN', 'a', 'a', 'a  ', '\x0000'),
	(10004, -1, -1, -1, '-0', '-0', '1999-12-31', '1999-12-31 23:59:59.999999', '1999-12-31 23:59:59.999999+00', '-0', 'a ', 'a ', 'a', '\x00ff'),
	(10005, 1, 1, 1, '0', '0', '4713-01-01 BC', '4713-01-01 BC', '4713-01-01 00:00+00 BC', '0.000', 'A', 'A', 'A', '\xff'),
	(10006, NULL, NULL, NULL, 'NaN', '-0', NULL, NULL, NULL, '1.0', 'ab', 'ab', 'ab', '\xffff'),
	(10007, NULL, NULL, NULL, '-0', 'NaN', NULL, NULL, NULL, '1.00', 'abc', 'abc', 'abc ', '\x00'),
	(10008, NULL, NULL, NULL, '1e-45', '5e-324', NULL, NULL, NULL, '1.0001', repeat('x', 40), repeat('x', 40), 'x', '\x0100'),
	(10009, NULL, NULL, NULL, '-1e-45', '-5e-324', NULL, NULL, NULL, '-1.0001', repeat('x', 40) || 'a', repeat('x', 40) || 'a', 'x ', repeat('\x61', 1)::bytea),
	(10010, NULL, NULL, NULL, '3.4e38', '1.7e308', NULL, NULL, NULL, '-1', repeat('x', 40) || 'b', repeat('x', 40) || 'b', 'y', decode(repeat('ab', 40), 'hex')),
	(10011, NULL, NULL, NULL, '-3.4e38', '-1.7e308', NULL, NULL, NULL, '1e100', repeat('x', 40) || 'a', repeat('x', 40) || 'ab', 'y', decode(repeat('ab', 40) || '00', 'hex')),
	(10012, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, '-1e100', repeat('x', 41), repeat('x', 39), NULL, decode(repeat('ab', 40) || '01', 'hex')),
	(10013, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, '1e-100', repeat('x', 40) || 'é', NULL, NULL, NULL),
	(10014, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, '-1e-100', NULL, NULL, NULL, NULL),
	(10015, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, '123456789012345678901234567890.123456789', NULL, NULL, NULL, NULL),
	(10016, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, '123456789012345678901234567890.123456788', NULL, NULL, NULL, NULL),
	(10017, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, '-123456789012345678901234567890.123456789', NULL, NULL, NULL, NULL),
	(10018, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, '-123456789012345678901234567890.1234567891', NULL, NULL, NULL, NULL),
	(10019, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, '99999999.99999999', NULL, NULL, NULL, NULL),
	(10020, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, '100000000', NULL, NULL, NULL, NULL);
ANALYZE ty;

-- one column at a time, in every direction
SELECT c, dir, gs_check(format('SELECT %I FROM ty ORDER BY %I %s', c, c, dir))
  FROM unnest(ARRAY['i2', 'i4', 'i8', 'f4', 'f8', 'b', 'd', 'ts', 'tz', 'u', 'n',
					'by', 'id']) WITH ORDINALITY AS cols(c, o),
	   unnest(ARRAY['', 'DESC', 'NULLS FIRST', 'DESC NULLS LAST']) WITH ORDINALITY AS dirs(dir, p)
 ORDER BY o, p;

-- strings under C, ICU (deterministic and not) and the database's libc
-- collation (which GpuSort hands to tuplesort)
CREATE COLLATION gs_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
SELECT c, coll, dir,
	   gs_check(format('SELECT %I COLLATE %I AS v FROM ty ORDER BY 1 %s', c, coll, dir))
  FROM unnest(ARRAY['t', 'vc', 'bp']) WITH ORDINALITY AS cols(c, o),
	   unnest(ARRAY['C', 'POSIX', 'en-x-icu', 'und-x-icu', 'sv-x-icu', 'gs_ci', 'default'])
		 WITH ORDINALITY AS colls(coll, q),
	   unnest(ARRAY['', 'DESC NULLS LAST']) WITH ORDINALITY AS dirs(dir, p)
 ORDER BY o, q, p;

-- several columns: keys that fit 8, 16 and 32 bytes, and keys too long for
-- 32 bytes, whose later columns are settled by the comparators
SELECT gs_check('SELECT b, i2 FROM ty ORDER BY b, i2 DESC');
SELECT gs_check('SELECT i2, i4 FROM ty ORDER BY i2 NULLS FIRST, i4');
SELECT gs_check('SELECT i8, d, f4 FROM ty ORDER BY i8 DESC, d, f4 DESC NULLS LAST');
SELECT gs_check('SELECT u, f8, ts, tz FROM ty ORDER BY u, f8, ts DESC, tz');
SELECT gs_check('SELECT i4 % 5 AS k, t COLLATE "C" AS s, n FROM ty ORDER BY 1, 2 DESC, 3');
SELECT gs_check('SELECT bp COLLATE "C" AS s, vc COLLATE "C" AS v, i2 FROM ty ORDER BY 1, 2, 3');
SELECT gs_check('SELECT n, i4 FROM ty ORDER BY n DESC NULLS LAST, i4');
SELECT gs_check('SELECT by, i8 FROM ty ORDER BY by, i8 DESC');
SELECT gs_check('SELECT t COLLATE "en-x-icu" AS s, i4 FROM ty ORDER BY 1 DESC, 2');
SELECT gs_check('SELECT i2 % 3 AS a, t AS s, id FROM ty ORDER BY 1, 2, 3');
SELECT gs_check('SELECT id % 7 AS a, (id * 7919) % 10007 AS b FROM ty ORDER BY 1 DESC, 2');
-- degenerate columns: only NULLs, one value (zero-width keys), one value and
-- NULLs, only empty strings
SELECT gs_check('SELECT n, i FROM (SELECT NULL::int AS n, i FROM generate_series(1, 300) i) s ORDER BY n, i DESC');
SELECT gs_check('SELECT c, i FROM (SELECT 7 AS c, i FROM generate_series(1, 300) i) s ORDER BY c DESC, i');
SELECT gs_check('SELECT c, i FROM (SELECT CASE WHEN i % 3 = 0 THEN NULL ELSE 7 END AS c, i FROM generate_series(1, 300) i) s ORDER BY c NULLS FIRST, i DESC');
SELECT gs_check('SELECT e, i FROM (SELECT CASE WHEN i % 4 = 0 THEN NULL ELSE '''' END COLLATE "C" AS e, i FROM generate_series(1, 300) i) s ORDER BY e DESC, i');
-- time and money are integers inside
SELECT gs_check('SELECT time ''00:00'' + i4 * interval ''1 second'' AS tm FROM ty ORDER BY 1 DESC NULLS LAST');
SELECT gs_check('SELECT (i8 / 100.0)::numeric::money AS m FROM ty WHERE i8 BETWEEN -1000000000000 AND 1000000000000 ORDER BY 1');
-- expressions, a USING operator, and a domain
CREATE DOMAIN gs_dom AS int8 CHECK (VALUE > -100);
SELECT gs_check('SELECT (i4 / 1000)::gs_dom AS v FROM ty WHERE i4 > -100000 ORDER BY 1');
SELECT gs_check('SELECT f8 * -1 AS v FROM ty ORDER BY f8 * -1 USING >');
SELECT gs_check('SELECT lower(t) AS v FROM ty ORDER BY lower(t) COLLATE "C"');
-- a type without an encoder (int4range) after ones that have one, and
-- first, where the stock plan stays (NO GPUSORT IN PLAN)
SELECT gs_check('SELECT i4, int4range(i2, i2 + 10) AS ip FROM ty ORDER BY 1, 2');
SELECT gs_check('SELECT int4range(i2, i2 + 10) AS ip FROM ty ORDER BY 1 DESC');
-- interval: the span interval_cmp_value compares, so '1 mon' = '30 days'
-- = '720 hours' are equal and 1 day sorts before 25 hours; sign changes
-- across fields, the extremes of each field, and NULLs
CREATE TABLE tiv (id int, iv interval);
INSERT INTO tiv
SELECT i, CASE WHEN i % 53 = 0 THEN NULL
			   ELSE (hashint4(i) % 40) * interval '1 month'
					+ (hashint4(i + 1) % 70) * interval '1 day'
					+ (hashint4(i + 2) % 3000) * interval '1 hour'
					+ (hashint4(i + 3) % 100000) * interval '1 microsecond' END
  FROM generate_series(1, 3000) i;
INSERT INTO tiv VALUES (3001, '1 mon'), (3002, '30 days'), (3003, '720 hours'),
	(3004, '1 day'), (3005, '25 hours'), (3006, '-1 mon 31 days'), (3007, '1 day -24 hours'),
	(3008, '178000000 years'), (3009, '-178000000 years'),
	(3010, '2147483000 days 2562047000 hours'), (3011, '-2147483000 days -2562047000 hours'),
	(3012, '0'), (3013, '-0.000001 s'), (3014, '0.000001 s');
SELECT gs_check('SELECT iv, id FROM tiv ORDER BY iv, id');
SELECT gs_check('SELECT iv, id FROM tiv ORDER BY iv DESC NULLS LAST, id');
SELECT gs_check('SELECT iv, id FROM tiv ORDER BY iv NULLS FIRST, id DESC LIMIT 40');
SELECT gs_check('SELECT id % 5 AS g, iv, id FROM tiv ORDER BY 1, 2 DESC, 3');
SELECT gs_check('SELECT iv, count(*) FROM tiv GROUP BY iv ORDER BY iv');
SELECT gs_check('SELECT id, rank() OVER (ORDER BY iv) FROM tiv ORDER BY iv, id');
SELECT id, iv FROM tiv WHERE id > 3000 ORDER BY iv, id;
DROP TABLE tiv;

-- random combinations of 1 to 5 sort expressions (columns, collations,
-- expressions), directions and NULLS placements, unbounded and under a
-- LIMIT; the seed makes them the same every run.  Lists the ones that
-- differ from stock (none).
SELECT setseed(0.42);
CREATE TEMP TABLE combos AS
SELECT g, string_agg(format('%s %s %s', o, d, nf), ', ' ORDER BY o) AS ob,
	   string_agg(format('%s AS x%s', c, o), ', ' ORDER BY o) AS cols
  FROM generate_series(1, 400) g,
  LATERAL (SELECT o,
				  (ARRAY['i2', 'i4', 'i8', 'f4', 'f8', 'b', 'd', 'ts', 'tz', 'u', 'n', 'by',
						 't COLLATE "C"', 'vc COLLATE "C"', 'bp COLLATE "C"',
						 't COLLATE "en-x-icu"', 'vc COLLATE "und-x-icu"', 'i4 % 7',
						 '(f8 > 0)', 'floor(n / 7)', 'length(t)', 'id'])[1 + floor(random() * 22)::int] AS c,
				  (ARRAY['', 'DESC'])[1 + floor(random() * 2)::int] AS d,
				  (ARRAY['', 'NULLS FIRST', 'NULLS LAST'])[1 + floor(random() * 3)::int] AS nf
			 FROM generate_series(1, 1 + floor(random() * 5)::int) o
			WHERE g > 0) x
 GROUP BY g;
SELECT g, cols, ob, r
  FROM (SELECT g, cols, ob,
			   gs_check(format('SELECT %s FROM ty ORDER BY %s%s', cols, ob,
							   CASE WHEN g % 3 = 0 THEN ' LIMIT 37 OFFSET 5' ELSE '' END)) AS r
		  FROM combos) s
 WHERE r NOT LIKE 'ok%'
 ORDER BY g;
SELECT count(*) AS combinations FROM combos;
