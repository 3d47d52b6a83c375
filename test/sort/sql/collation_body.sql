-- The body of sort_collation, run in a database of each default locale
-- (the caller sets :gs_check_sql): text, varchar, bpchar and name sorted under the
-- database's default collation and under each libc collation by COLLATE,
-- compared whole, in order, with stock.
SET client_min_messages = warning;
CREATE EXTENSION gpusort;
RESET client_min_messages;
LOAD 'gpusort';
SET gpusort.min_rows = 0;
\set ECHO none
\i :gs_check_sql
\set ECHO all

-- strings that libc locales order far from byte order: accents and case,
-- ß and ss, dotted and dotless i, punctuation and spaces that en_US
-- ignores at the first level, digits, a combining accent against the
-- precomposed letter, CJK, emoji, empty strings, long common prefixes
CREATE TABLE cw (id int, s text, v varchar(120), b char(12), nm name);
WITH words(ws) AS (
	SELECT ARRAY['a', 'A', 'á', 'Á', 'ä', 'Ä', 'æ', 'Æ', 'å', 'Å', 'ø', 'Ø',
				 'ß', 'ss', 'SS', 'Straße', 'Strasse', 'strasse', 'ı', 'i', 'I', 'İ',
				 'co-op', 'coop', 'co op', 'Co-op', 'e' || U&'\0301', 'é', 'É', 'e',
				 'E', '中', '日本', '日本語', '😀', '😁', '', ' ', '10', '9', '1 0',
				 'ab', 'a-b', 'a b', 'aB', 'x', 'zebra', 'Zebra', 'öl', 'oe', 'Ökonom',
				 'ﬁ', 'fi', 'Ǆ', 'DŽ',
				 repeat('long shared prefix ', 4) || 'x',
				 repeat('long shared prefix ', 4) || 'y',
				 repeat('long shared prefix ', 4) || 'X',
				 repeat('-', 71) || 'b', repeat('-', 71) || 'a',
				 repeat('é', 70) || 'b', repeat('é', 70) || 'a', repeat('e', 70) || 'a'])
INSERT INTO cw
SELECT i, w, w, w::char(12), w::name
  FROM (SELECT i,
			   CASE WHEN i % 41 = 0 THEN NULL
					ELSE ws[1 + (hashint4(i) & 1023) % array_length(ws, 1)]
						 || CASE i % 5 WHEN 1 THEN ' ' || (i % 13) WHEN 2 THEN '-' || (i % 7)
									   WHEN 3 THEN upper(md5(i::text)) ELSE '' END
			   END AS w
		  FROM words, generate_series(1, 4000) i) q;
ANALYZE cw;

-- verified(q): the key layout and the check of the strxfrm prefix, from
-- EXPLAIN ANALYZE, with the engine (the GPU harness runs this too), the key
-- width and the count of pairs compared (which depend on the C library's
-- tables) masked
CREATE FUNCTION verified(q text) RETURNS SETOF text LANGUAGE plpgsql AS $f$
DECLARE
	ln text;
BEGIN
	FOR ln IN EXECUTE 'EXPLAIN (ANALYZE, BUFFERS OFF, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		IF ln ~ 'GpuSort:' OR ln ~ 'Verified:' THEN
			ln := regexp_replace(ln, 'GpuSort: [a-z -]+, key \d+ bytes', 'GpuSort: ENGINE, key N bytes');
			ln := regexp_replace(ln, '\d+-byte strxfrm', 'N-byte strxfrm');
			ln := regexp_replace(ln, 'merged with \d+ comparisons', 'merged with N comparisons');
			RETURN NEXT regexp_replace(trim(ln), 'Verified: \d+ pairs', 'Verified: N pairs');
		END IF;
	END LOOP;
END
$f$;

SELECT * FROM verified('SELECT * FROM cw ORDER BY s, id');
SELECT gs_check('SELECT s FROM cw ORDER BY s');
SELECT gs_check('SELECT s, id FROM cw ORDER BY s, id');
SELECT gs_check('SELECT s, id FROM cw ORDER BY s DESC, id');
SELECT gs_check('SELECT s, id FROM cw ORDER BY s NULLS FIRST, id DESC');
SELECT gs_check('SELECT v, id FROM cw ORDER BY v DESC NULLS LAST, id');
SELECT gs_check('SELECT b, id FROM cw ORDER BY b, id');
SELECT gs_check('SELECT b, id FROM cw ORDER BY b DESC NULLS FIRST, id');
-- name: the C collation by default, any other by COLLATE
SELECT gs_check('SELECT nm, id FROM cw ORDER BY nm, id');
SELECT gs_check('SELECT nm COLLATE "en_US.utf8" AS nm, id FROM cw ORDER BY 1 DESC, 2');
SELECT gs_check('SELECT id % 7 AS g, s, id FROM cw ORDER BY 1, 2 DESC, 3');
SELECT gs_check('SELECT s, v, id FROM cw ORDER BY s, v DESC, id');
SELECT gs_check('SELECT s, id FROM cw ORDER BY s, id LIMIT 17');
SELECT gs_check('SELECT s, id FROM cw ORDER BY s DESC, id LIMIT 50 OFFSET 1000');
SELECT gs_check('SELECT s, count(*) FROM cw GROUP BY s ORDER BY s');
SELECT gs_check('SELECT id, rank() OVER (ORDER BY s), s FROM cw ORDER BY s, id');

-- every libc collation by COLLATE
SELECT gs_check('SELECT s COLLATE "en_US.utf8" AS s, id FROM cw ORDER BY 1, 2');
SELECT gs_check('SELECT s COLLATE "de_DE.utf8" AS s, id FROM cw ORDER BY 1 DESC, 2');
SELECT gs_check('SELECT s COLLATE "sv_SE.utf8" AS s, id FROM cw ORDER BY 1, 2');
SELECT gs_check('SELECT s COLLATE "tr_TR.utf8" AS s, id FROM cw ORDER BY 1, 2');
SELECT gs_check('SELECT s COLLATE "C.utf8" AS s, id FROM cw ORDER BY 1, 2');
SELECT gs_check('SELECT v COLLATE "tr_TR.utf8" AS v, s, id FROM cw ORDER BY 1 NULLS FIRST, 2 DESC, 3');
SELECT * FROM verified('SELECT * FROM cw ORDER BY s COLLATE "C.utf8", id');
SELECT * FROM verified('SELECT * FROM cw ORDER BY s COLLATE "sv_SE.utf8", id');

-- the parallel node
SET gpusort.parallel = on;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT gs_check('SELECT s, id FROM cw ORDER BY s, id');
SELECT gs_check('SELECT b, v, id FROM cw ORDER BY b DESC, v, id');
SELECT gs_check('SELECT s COLLATE "de_DE.utf8" AS s, id FROM cw ORDER BY 1, 2');
RESET gpusort.parallel;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- the check finds the disorder that gpusort.debug_scramble_keys makes, and
-- the two runs on either side of it are merged by the comparators (not
-- every row sorted again): the result stays exact, bounded or not
SET gpusort.debug_scramble_keys = on;
SELECT * FROM verified('SELECT * FROM cw ORDER BY s COLLATE "en_US.utf8", id');
SELECT * FROM verified('SELECT * FROM cw ORDER BY s COLLATE "en_US.utf8", id LIMIT 300');
SELECT gs_check('SELECT s COLLATE "en_US.utf8" AS s, id FROM cw ORDER BY 1, 2');
SELECT gs_check('SELECT s COLLATE "en_US.utf8" AS s, id FROM cw ORDER BY 1 DESC, 2 LIMIT 30');
SELECT gs_check('SELECT s COLLATE "en_US.utf8" AS s, id FROM cw ORDER BY 1, 2 LIMIT 300');
SELECT gs_check('SELECT s COLLATE "en_US.utf8" AS s, id FROM cw ORDER BY 1 NULLS FIRST, 2 LIMIT 1');
SELECT gs_check('SELECT id % 3 AS g, s COLLATE "de_DE.utf8" AS s, id FROM cw ORDER BY 1, 2 DESC, 3');
RESET gpusort.debug_scramble_keys;

-- a sort large enough for threads: keys built, ties found and pairs
-- checked on them
CREATE TABLE cw_big AS
SELECT i AS id, s || ' ' || (hashint4(i) % 1000) AS s FROM cw, generate_series(1, 40) i;
ANALYZE cw_big;
SELECT gs_check('SELECT s, id FROM cw_big ORDER BY s, id');
SELECT gs_check('SELECT s COLLATE "de_DE.utf8" AS s, id FROM cw_big ORDER BY 1 DESC, 2');
SET gpusort.debug_scramble_keys = on;
SELECT gs_check('SELECT s COLLATE "sv_SE.utf8" AS s, id FROM cw_big ORDER BY 1, 2');
RESET gpusort.debug_scramble_keys;

DROP TABLE cw, cw_big;
DROP FUNCTION verified(text);
