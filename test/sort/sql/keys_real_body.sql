-- The body of sort_keys_real, run in a database of each default locale:
-- realistic text (categories and brands of few values with long shared
-- prefixes, names with apostrophes, hyphens and accents, addresses,
-- e-mail addresses, URLs, strings glibc's strxfrm orders apart from
-- strcoll) as the first of several sort columns, compared whole, in order,
-- with stock PostgreSQL.
SET client_min_messages = warning;
CREATE EXTENSION gpusort;
RESET client_min_messages;
LOAD 'gpusort';
SET gpusort.min_rows = 0;
\set ECHO none
\i :gs_check_sql
\set ECHO all

CREATE TABLE kr (id int, category text, brand text, country text, city text,
				 name text, address text, email text, url text, odd text,
				 day date, ts timestamp, amount numeric, band numeric);
INSERT INTO kr
SELECT i,
	   CASE WHEN i % 97 = 0 THEN NULL
			ELSE (ARRAY['Électronique grand public > Téléviseurs ',
						'Électronique grand public > Téléphones ',
						'Maison et jardin > Cuisine > Ustensiles ',
						'Maison et jardin > Cuisine > Électroménager '])[1 + h1 % 4]
				 || lpad((h2 % 75)::text, 3, '0') END,
	   CASE WHEN i % 89 = 0 THEN NULL
			ELSE (ARRAY['Maison Dupont-Lefèvre & Fils', 'L''Oréal Paris', 'l''oreal paris',
						'Ōkami Co.', 'Ökotest GmbH', 'co-op', 'Co-Op', 'coop', 'Zürich Versicherung',
						'Ängelholm AB'])[1 + h2 % 10] || ' ' || (h3 % 40) END,
	   (ARRAY['France', 'Deutschland', 'Sverige', 'Türkiye', 'United States',
			  'Österreich', 'Ísland', 'Česko', 'España', 'Italia', 'Danmark', 'Schweiz'])[1 + h3 % 12],
	   (ARRAY['Saint-Étienne', 'L''Haÿ-les-Roses', 'Aix-en-Provence', 'Île-Saint-Denis',
			  'München', 'Münster', 'Malmö', 'Örebro', 'İstanbul', 'Izmir', 'New York',
			  'Newark', 'St. Louis', 'St Louis', 'Saint Louis', 'Zürich'])[1 + h4 % 16],
	   (ARRAY['Anne-Marie', 'Jean-Luc', 'Zoë', 'Chloé', 'Søren', 'Åsa', 'Ömer', 'İlker',
			  'Dmitri', 'Seán', 'Mary Jo', 'Mary-Jo'])[1 + h1 % 12] || ' ' ||
	   (ARRAY['O''Brien', 'OBrien', 'O Brien', 'D''Angelo', 'Lefèvre-Durand', 'Lefevre Durand',
			  'van der Berg', 'Van Der Berg', 'MacDonald', 'Mc Donald', 'Ødegaard', 'Åström',
			  'Çelik', 'Iñárritu', 'Núñez', 'Nunez'])[1 + h2 % 16],
	   (h3 % 9999)::text || (ARRAY['', '-B', ' 1/2', '-A'])[1 + h1 % 4] || ' ' ||
	   (ARRAY['Main', 'Main-Street', 'Old Mill', 'Old-Mill', 'St. James', 'Saint James'])[1 + h4 % 6] || ' ' ||
	   (ARRAY['St.', 'Ave.', 'Blvd', 'Rd.'])[1 + h2 % 4],
	   lower((ARRAY['anne-marie', 'jean.luc', 'zoe', 'o''brien', 'soren'])[1 + h1 % 5]) ||
	   (h2 % 300)::text || '@' || (ARRAY['example.com', 'mail.example-shop.co.uk', 'exämple.de'])[1 + h3 % 3],
	   'https://www.example-shop.com/catégorie/' ||
	   (ARRAY['electronique/televiseurs', 'maison-jardin/cuisine'])[1 + h1 % 2] || '?page=' || (h2 % 500) || '&id=' || i,
	   (ARRAY['10 +5 Co-Op', '10-5coop', '1,000_x', '1,000 #x', '10 5 coop', '1000x'])[1 + h1 % 6]
	   || ' ' || (h2 % 3000),
	   date '2024-01-01' + h3 % 366,
	   timestamp '2024-01-01' + (h4 % 1000000) * interval '1 minute',
	   round((h1 % 100000) / 100.0, 2),
	   (h2 % 40) * 2.5
  FROM generate_series(1, 20000) i,
	   LATERAL (SELECT hashint4(i) & 2147483647 AS h1, hashint4(i + 1000003) & 2147483647 AS h2,
					   hashint4(i + 2000003) & 2147483647 AS h3, hashint4(i + 3000017) & 2147483647 AS h4) h;
ANALYZE kr;

-- keyed(q): the key layout and the ties from EXPLAIN ANALYZE, with what
-- depends on the engine and the C library masked; and where refinement
-- left groups to the comparators, their counts (the refinement's cost
-- bound weighs transforms kept per thread against transforms made again,
-- so the groups it stops at depend on the threads a sort had)
CREATE FUNCTION keyed(q text) RETURNS SETOF text LANGUAGE plpgsql AS $f$
DECLARE
	ln text;
	lines text[] := '{}';
	bounded boolean := false;
BEGIN
	FOR ln IN EXECUTE 'EXPLAIN (ANALYZE, BUFFERS OFF, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		IF ln ~ 'GpuSort:' THEN
			ln := regexp_replace(ln, 'GpuSort: [a-z -]+, key \d+ bytes', 'GpuSort: ENGINE, key N bytes');
			ln := regexp_replace(ln, '\d+-byte (strxfrm )?prefix', 'N-byte \1prefix');
			lines := lines || trim(ln);
		ELSIF ln ~ 'Ties:' THEN
			lines := lines || regexp_replace(trim(ln), '  Memory: .*', '');
		ELSIF ln ~ 'Refined:' THEN
			ln := regexp_replace(trim(ln), '\(\d+ rounds\)', '(N rounds)');
			bounded := ln ~ 'left to the comparators';
			lines := lines || regexp_replace(ln, '\d+ groups, \d+ rows left to the comparators',
											 'N groups, N rows left to the comparators');
		ELSIF ln ~ 'Verified:' THEN
			lines := lines || regexp_replace(trim(ln), '\d+', 'N', 'g');
		END IF;
	END LOOP;
	FOREACH ln IN ARRAY lines LOOP
		IF bounded AND ln ~ '^Rows: ' THEN
			ln := regexp_replace(ln, 'Ties: \d+ groups, \d+ rows', 'Ties: N groups, N rows');
		END IF;
		RETURN NEXT ln;
	END LOOP;
END
$f$;

-- a category of 300 values before a date, a number, a timestamp: ranks,
-- so the next columns fit in the key and nothing is left to the comparators
SELECT * FROM keyed('SELECT * FROM kr ORDER BY category, day, id');
SELECT * FROM keyed('SELECT * FROM kr ORDER BY country, city, name, id');
SELECT * FROM keyed('SELECT * FROM kr ORDER BY band DESC, category COLLATE "C", amount');
SELECT gs_check('SELECT category, day, id FROM kr ORDER BY category, day, id');
SELECT gs_check('SELECT category, amount, id FROM kr ORDER BY category DESC, amount, id');
SELECT gs_check('SELECT category, ts, id FROM kr ORDER BY category NULLS FIRST, ts DESC, id');
SELECT gs_check('SELECT brand, category, day, id FROM kr ORDER BY brand DESC NULLS LAST, category, day, id');
SELECT gs_check('SELECT country, city, name, id FROM kr ORDER BY country, city, name, id');
SELECT gs_check('SELECT band, category, amount, id FROM kr ORDER BY band DESC, category, amount, id');
SELECT gs_check('SELECT category, day, id FROM kr ORDER BY category, day, id LIMIT 25');
SELECT gs_check('SELECT category, day, id FROM kr ORDER BY category DESC, day, id LIMIT 40 OFFSET 3000');
-- values the comparator calls equal with different bytes share a rank:
-- numerics of different scales, bpchar with and without a trailing blank
SELECT gs_check('SELECT round(band, id % 3) AS b, id FROM kr ORDER BY 1, 2');
SELECT gs_check('SELECT round(band, id % 3) AS b, category, id FROM kr ORDER BY 1 DESC, 2, 3');
SELECT gs_check('SELECT (CASE WHEN id % 2 = 0 THEN country || '' '' ELSE country END)::bpchar AS c, day, id FROM kr ORDER BY 1, 2, 3');
SELECT gs_check('SELECT (CASE WHEN id % 2 = 0 THEN city || '' '' ELSE city END)::bpchar COLLATE "C" AS c, id FROM kr ORDER BY 1 DESC, 2');
-- text that shares long prefixes, alone and first; and strings whose
-- strxfrm prefixes glibc orders against strcoll in en_US.UTF-8: the check
-- finds the pairs out of order and they are repaired locally (merging the
-- runs between them), still equal to stock
SELECT * FROM keyed('SELECT * FROM kr ORDER BY odd, id');
-- rows whose prefixes tie are ordered by the next bytes of their transform
-- (then their own bytes), the comparators only for equal values' later
-- columns (here id)
SELECT * FROM keyed('SELECT * FROM kr ORDER BY email, id');
SELECT * FROM keyed('SELECT * FROM kr ORDER BY url DESC');
SELECT * FROM keyed('SELECT * FROM kr ORDER BY address COLLATE "und-x-icu", id');
SELECT * FROM keyed('SELECT * FROM kr ORDER BY url COLLATE "C"');
SELECT gs_check('SELECT name, id FROM kr ORDER BY name, id');
SELECT gs_check('SELECT address, id FROM kr ORDER BY address DESC, id');
SELECT gs_check('SELECT email, id FROM kr ORDER BY email, id');
SELECT gs_check('SELECT url FROM kr ORDER BY url');
SELECT gs_check('SELECT url FROM kr ORDER BY url DESC');
SELECT gs_check('SELECT url COLLATE "C" AS u FROM kr ORDER BY 1 DESC');
SELECT gs_check('SELECT email COLLATE "und-x-icu" AS e, id FROM kr ORDER BY 1, 2 DESC');
SELECT gs_check('SELECT address COLLATE "sv_SE.utf8" AS a, id FROM kr ORDER BY 1 DESC, 2');
SELECT gs_check('SELECT email, id FROM kr ORDER BY email NULLS FIRST, id LIMIT 500');
SELECT gs_check('SELECT url FROM kr ORDER BY url LIMIT 77 OFFSET 5000');
SELECT gs_check('SELECT odd, id FROM kr ORDER BY odd, id');
SELECT gs_check('SELECT odd, id FROM kr ORDER BY odd DESC, id LIMIT 100');
SET gpusort.refine_ties = off;
SELECT * FROM keyed('SELECT * FROM kr ORDER BY url');
SELECT gs_check('SELECT url FROM kr ORDER BY url');
RESET gpusort.refine_ties;
SET gpusort.dict_ranks = off;
SELECT * FROM keyed('SELECT * FROM kr ORDER BY category, day, id');
SELECT gs_check('SELECT category, day, id FROM kr ORDER BY category, day, id');
RESET gpusort.dict_ranks;
-- windows and groups
SELECT gs_check('SELECT id, category, day, row_number() OVER (PARTITION BY category ORDER BY day, id) FROM kr ORDER BY category, day, id');
SELECT gs_check('SELECT id, sum(amount) OVER (PARTITION BY country, city ORDER BY ts, id) FROM kr ORDER BY id');
SELECT gs_check('SELECT category, brand, count(*), sum(amount) FROM kr GROUP BY category, brand ORDER BY category, brand');
-- under each libc collation by COLLATE, and ICU's root collation
SELECT gs_check('SELECT category COLLATE "de_DE.utf8" AS c, day, id FROM kr ORDER BY 1, 2, 3');
SELECT gs_check('SELECT city COLLATE "sv_SE.utf8" AS c, name, id FROM kr ORDER BY 1 DESC, 2, 3');
SELECT gs_check('SELECT city COLLATE "tr_TR.utf8" AS c, name COLLATE "tr_TR.utf8" AS n, id FROM kr ORDER BY 1, 2, 3');
SELECT gs_check('SELECT name COLLATE "de_DE.utf8" AS n, id FROM kr ORDER BY 1, 2');
SELECT gs_check('SELECT brand COLLATE "und-x-icu" AS b, amount, id FROM kr ORDER BY 1, 2, 3');
SELECT gs_check('SELECT category COLLATE "C" AS c, ts, id FROM kr ORDER BY 1 DESC, 2, 3');
-- a nondeterministic ICU collation: strings it calls equal stay equal
-- (no tie-break by their bytes), the later column orders them
CREATE COLLATION gs_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
SELECT gs_check('SELECT lower(name) COLLATE gs_ci AS n, id FROM kr ORDER BY 1, 2');
SELECT gs_check('SELECT (CASE WHEN id % 2 = 0 THEN upper(brand) ELSE brand END) COLLATE gs_ci AS b, id FROM kr ORDER BY 1, 2 DESC');
SELECT gs_check('SELECT (CASE WHEN id % 2 = 0 THEN upper(url) ELSE url END) COLLATE gs_ci AS u, id FROM kr ORDER BY 1 DESC, 2');
DROP COLLATION gs_ci;
-- the parallel node
SET gpusort.parallel = on;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT gs_check('SELECT category, day, id FROM kr ORDER BY category, day, id');
SELECT gs_check('SELECT country, city, name, id FROM kr ORDER BY country DESC, city, name, id');
RESET gpusort.parallel;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- a sort large enough for threads (ranks counted on them), with a
-- disagreement made by gpusort.debug_scramble_keys where a strxfrm
-- prefix is checked
CREATE TABLE kr_big AS SELECT * FROM kr, generate_series(1, 8) g;
ANALYZE kr_big;
SELECT gs_check('SELECT category, day, id, g FROM kr_big ORDER BY category, day, id, g');
SELECT gs_check('SELECT country, city, name, id, g FROM kr_big ORDER BY country, city DESC, name, id, g');
SET gpusort.debug_scramble_keys = on;
SELECT gs_check('SELECT url, g FROM kr_big ORDER BY url, g');
SELECT gs_check('SELECT odd, id, g FROM kr_big ORDER BY odd, id, g');
-- the parallel node, which keys odd by its strxfrm prefix here, where
-- the transform disagrees with strcoll next to the scrambled pair
SET gpusort.parallel = on;
SELECT gs_check('SELECT odd, id, g FROM kr_big ORDER BY odd, id, g');
RESET gpusort.parallel;
RESET gpusort.debug_scramble_keys;
-- without ranks, the disagreements of odd make thousands of runs, merged
-- on threads with strcoll (the backend where equal strings need the later
-- columns), all equal to stock
SET gpusort.dict_ranks = off;
SELECT * FROM keyed('SELECT * FROM kr_big ORDER BY odd, id, g');
SELECT gs_check('SELECT odd FROM kr_big ORDER BY odd');
SELECT gs_check('SELECT odd, id, g FROM kr_big ORDER BY odd, id, g');
SELECT gs_check('SELECT odd, g, id FROM kr_big ORDER BY odd DESC, g, id');
SET gpusort.cpu_threads = 15;
SELECT gs_check('SELECT odd, id, g FROM kr_big ORDER BY odd, id, g');
RESET gpusort.cpu_threads;
SET max_parallel_workers_per_gather = 0;
SELECT gs_check('SELECT odd, id, g FROM kr_big ORDER BY odd, id, g LIMIT 1000');
RESET max_parallel_workers_per_gather;
-- a value's duplicates moved together: each string of odd's prefixes 1
-- to 36 times, so that a disagreement moves rows past up to 36 equal ones
-- (past the repair's searches' first probes, and through its merges'
-- shortcut over the rest of a run), on threads, on the backend alone, and
-- under a bound
CREATE TABLE kr_dup AS
  SELECT p || ' ' || n AS odd, g
  FROM unnest(ARRAY['10 +5 Co-Op', '10-5coop', '1,000_x', '1,000 #x', '10 5 coop', '1000x']) p,
       generate_series(1, 1500) n,
       LATERAL generate_series(1, 1 + (n * 7 + length(p)) % 36) g;
ANALYZE kr_dup;
SELECT gs_check('SELECT odd FROM kr_dup ORDER BY odd');
SELECT gs_check('SELECT odd, g FROM kr_dup ORDER BY odd DESC, g');
-- many threads: each checking task repairs its descents in place but at
-- its slice's ends, which the merge takes (one task's last row is the
-- next one's first partner, so neither moves it)
SET gpusort.cpu_threads = 15;
SELECT gs_check('SELECT odd FROM kr_dup ORDER BY odd');
SELECT gs_check('SELECT odd, g FROM kr_dup ORDER BY odd DESC, g');
RESET gpusort.cpu_threads;
SET gpusort.cpu_threads = 1;
SELECT gs_check('SELECT odd FROM kr_dup ORDER BY odd');
RESET gpusort.cpu_threads;
SET max_parallel_workers_per_gather = 0;
SELECT gs_check('SELECT odd, g FROM kr_dup ORDER BY odd, g LIMIT 5000');
RESET max_parallel_workers_per_gather;
DROP TABLE kr_dup;
-- NULLs among them: a thread that meets one in its segment of runs
-- leaves that segment to the backend's comparators
UPDATE kr_big SET odd = NULL WHERE id % 400 = 0;
SELECT gs_check('SELECT odd FROM kr_big ORDER BY odd');
SELECT gs_check('SELECT odd, id, g FROM kr_big ORDER BY odd NULLS FIRST, id, g');
-- the refinement keeps each row's transform (and value) past its first
-- round's chunk, under libc, for the later rounds: values repeated up to 5
-- times, whose tails fill a task's room, so that some rows are kept and
-- the rest transformed again, in one group; both intakes
UPDATE kr_big SET odd = repeat(odd, 1 + id % 5) WHERE id % 3 = 0;
SELECT gs_check('SELECT odd, id, g FROM kr_big ORDER BY odd, id, g');
SELECT gs_check('SELECT odd, g FROM kr_big ORDER BY odd DESC NULLS LAST, g');
SET gpusort.parallel = on;
SELECT gs_check('SELECT odd, id, g FROM kr_big ORDER BY odd NULLS FIRST, id, g');
SELECT gs_check('SELECT odd, g, id FROM kr_big ORDER BY odd DESC, g, id');
RESET gpusort.parallel;
RESET gpusort.dict_ranks;

DROP TABLE kr, kr_big;
DROP FUNCTION keyed(text);
