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

-- gs_check(q), gs_cursor_check(q), shared by the sort tests: test/sort/sql/gs_check.sql
\getenv abs_srcdir PG_ABS_SRCDIR
\set gs_check_sql :abs_srcdir '/test/sort/sql/gs_check.sql'
\set ECHO none
\i :gs_check_sql
\set ECHO all

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
