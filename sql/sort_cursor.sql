-- GpuSort under cursors: a SCROLL cursor fetched backwards, absolute and
-- relative moves, running off either end, a bounded sort scrolled back and
-- forth, and a WITH HOLD cursor.  Compared with stock PostgreSQL.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS gpusort;
RESET client_min_messages;
LOAD 'gpusort';
SET gpusort.min_rows = 0;

CREATE TABLE cur (id int, k int, s text);
INSERT INTO cur SELECT i, hashint4(i) % 100, md5(i::text) FROM generate_series(1, 500) i;
ANALYZE cur;

-- walks a SCROLL cursor over q in every direction and returns what it saw
CREATE OR REPLACE FUNCTION gs_cursor_walk(q text) RETURNS text[] LANGUAGE plpgsql AS $f$
DECLARE
	c refcursor;
	r record;
	seen text[] := '{}';
	i int;
BEGIN
	OPEN c SCROLL FOR EXECUTE q;
	FOR i IN 1 .. 5 LOOP
		FETCH NEXT FROM c INTO r; seen := seen || r::text;
	END LOOP;
	FETCH PRIOR FROM c INTO r; seen := seen || r::text;
	FETCH LAST FROM c INTO r; seen := seen || r::text;
	FETCH NEXT FROM c INTO r; seen := seen || coalesce(r::text, 'end');
	FETCH NEXT FROM c INTO r; seen := seen || coalesce(r::text, 'end');
	FETCH PRIOR FROM c INTO r; seen := seen || coalesce(r::text, 'none');
	FETCH ABSOLUTE 42 FROM c INTO r; seen := seen || coalesce(r::text, 'none');
	FETCH RELATIVE -7 FROM c INTO r; seen := seen || coalesce(r::text, 'none');
	FETCH FIRST FROM c INTO r; seen := seen || r::text;
	FETCH PRIOR FROM c INTO r; seen := seen || coalesce(r::text, 'start');
	FETCH NEXT FROM c INTO r; seen := seen || coalesce(r::text, 'none');
	MOVE LAST FROM c;
	LOOP	-- everything, backwards
		FETCH PRIOR FROM c INTO r;
		EXIT WHEN NOT FOUND;
		seen := seen || r::text;
	END LOOP;
	CLOSE c;
	RETURN seen;
END
$f$;

CREATE OR REPLACE FUNCTION gs_cursor_check(q text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
	a text[];
	b text[];
	used boolean := false;
	ln text;
BEGIN
	PERFORM set_config('gpusort.enabled', 'on', true);
	FOR ln IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		used := used OR ln LIKE '%Custom Scan (GpuSort)%';
	END LOOP;
	a := gs_cursor_walk(q);
	PERFORM set_config('gpusort.enabled', 'off', true);
	b := gs_cursor_walk(q);
	PERFORM set_config('gpusort.enabled', 'on', true);
	RETURN CASE WHEN NOT used THEN 'NO GPUSORT IN PLAN'
				WHEN a IS DISTINCT FROM b THEN 'DIFFERENT'
				ELSE 'ok' END || format(' (%s fetches)', cardinality(a));
END
$f$;

SELECT gs_cursor_check('SELECT id, k FROM cur ORDER BY k, id');
SELECT gs_cursor_check('SELECT s FROM cur ORDER BY s COLLATE "C" DESC');
SELECT gs_cursor_check('SELECT id, k FROM cur ORDER BY k DESC, id LIMIT 60 OFFSET 10');
SELECT gs_cursor_check('SELECT id, k FROM cur WHERE k = 5 ORDER BY id');
SELECT gs_cursor_check('SELECT k, count(*) AS n FROM cur GROUP BY k ORDER BY k');

-- the same by hand, so the rows can be read
BEGIN;
DECLARE c SCROLL CURSOR FOR SELECT id, k FROM cur WHERE id <= 20 ORDER BY k DESC, id;
FETCH 3 FROM c;
FETCH BACKWARD 2 FROM c;
FETCH LAST FROM c;
FETCH BACKWARD 3 FROM c;
FETCH ABSOLUTE 10 FROM c;
MOVE FORWARD ALL FROM c;
FETCH BACKWARD 1 FROM c;
FETCH RELATIVE 1 FROM c;
COMMIT;

-- a cursor held past its transaction
BEGIN;
DECLARE h SCROLL CURSOR WITH HOLD FOR SELECT id, k FROM cur ORDER BY k, id LIMIT 5;
COMMIT;
FETCH ALL FROM h;
FETCH BACKWARD 2 FROM h;
CLOSE h;
SET gpusort.enabled = off;
SELECT id, k FROM cur ORDER BY k, id LIMIT 5;
