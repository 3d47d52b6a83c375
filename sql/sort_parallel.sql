-- The parallel GpuSort: where the plan below a sort is parallel, every
-- participant of the Gather stores its rows and raw keys in shared memory
-- (GpuSortStore) and the leader's GpuSort sorts them all at once.  Every
-- query is compared, whole result in order, with stock PostgreSQL (its own
-- parallel plan); EXPLAIN ANALYZE shows that the rows came through shared
-- memory.  Also: workers that never start, a leader that does not take
-- part, a budget that runs out before or during the intake, an ERROR in a
-- worker, a cancel, rescans, and gpusort.parallel = off.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS gpusort;
RESET client_min_messages;
LOAD 'gpusort';
SET gpusort.min_rows = 0;
-- the parallel node whatever the machine (auto uses it from 8 cores)
SET gpusort.parallel = on;
-- gs_check(q) and explain_masked(q), shared by the sort tests: test/sort/sql/gs_check.sql
\getenv abs_srcdir PG_ABS_SRCDIR
\set gs_check_sql :abs_srcdir '/test/sort/sql/gs_check.sql'
\set ECHO none
\i :gs_check_sql
\set ECHO all

-- par_intake(q): how the rows of q's GpuSorts arrived, from EXPLAIN
-- ANALYZE: the total that came through shared memory (participants and
-- their shares vary from run to run, so they are not shown), or how the
-- sort ran instead
CREATE FUNCTION par_intake(q text) RETURNS SETOF text LANGUAGE plpgsql AS $f$
DECLARE
	ln text;
	intake text;
	spilled boolean := false;
	shared_runs boolean := false;
BEGIN
	FOR ln IN EXECUTE 'EXPLAIN (ANALYZE, BUFFERS OFF, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		IF ln ~ 'Parallel Intake:' THEN
			intake := regexp_replace(trim(ln), 'by \d+ participants', 'by N participants');
		ELSIF ln ~ 'Spill:' THEN
			-- how many rows were stored before the room ran out varies
			spilled := true;
			shared_runs := ln ~ 'runs of \d+ participants';
			RETURN NEXT regexp_replace(trim(ln), '\d+', 'N', 'g');
		ELSIF ln ~ 'GpuSort: tuplesort' OR ln ~ 'Rows Stored: none' THEN
			RETURN NEXT trim(ln);
		END IF;
	END LOOP;
	-- participants that wrote runs: whether others' rows stayed in shared
	-- memory varies from run to run
	IF shared_runs THEN
		RETURN;
	ELSIF intake IS NOT NULL AND spilled THEN
		RETURN NEXT regexp_replace(intake, '\d+ rows stored', 'N rows stored');
	ELSIF intake IS NOT NULL THEN
		RETURN NEXT intake;
	END IF;
END
$f$;

SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;

CREATE TABLE p1 (id int, i8 int8, f8 float8, t text, n numeric, ts timestamptz, g int);
INSERT INTO p1
SELECT i,
	   CASE WHEN i % 97 = 0 THEN NULL ELSE hashint4(i) % 5000 END,
	   CASE WHEN i % 89 = 0 THEN NULL WHEN i % 1000 = 1 THEN 'NaN' ELSE (hashint4(-i) % 1000) / 7.0 END,
	   CASE WHEN i % 83 = 0 THEN NULL ELSE md5((i % 20000)::text) END,
	   (hashint4(i * 3) % 100000) / 100.0,
	   timestamptz '2026-01-01' + (hashint4(i) % 100000) * interval '1 minute',
	   i % 50
  FROM generate_series(1, 40000) i;
CREATE TABLE p2 (id int, g int, w text);
INSERT INTO p2 SELECT i, i % 50, md5(i::text) FROM generate_series(1, 3000) i;
ANALYZE p1, p2;

-- ORDER BY over a parallel scan: the shape, and the rows through shared memory
EXPLAIN (COSTS OFF) SELECT * FROM p1 ORDER BY i8, id;
SELECT par_intake('SELECT * FROM p1 ORDER BY i8, id');
SELECT gs_check('SELECT * FROM p1 ORDER BY i8, id');
SELECT gs_check('SELECT * FROM p1 ORDER BY i8 DESC NULLS LAST, id');
SELECT gs_check('SELECT * FROM p1 ORDER BY t COLLATE "C", id');
SELECT gs_check('SELECT * FROM p1 ORDER BY t COLLATE "C" DESC NULLS FIRST, f8, id');
SELECT gs_check('SELECT * FROM p1 ORDER BY f8 NULLS FIRST, id');
SELECT gs_check('SELECT * FROM p1 ORDER BY n DESC, ts, id');
SELECT gs_check('SELECT * FROM p1 ORDER BY g, ts DESC, id');
-- a key column past what the key holds, settled by the comparators
SELECT gs_check('SELECT id, t, g FROM p1 ORDER BY t COLLATE "C", g, id DESC');
-- a sort expression the workers compute
SELECT gs_check('SELECT id, i8 % 7 AS m FROM p1 ORDER BY i8 % 7, id');
-- an interval the workers compute, keyed exactly
SELECT gs_check('SELECT id, ts - timestamptz ''2026-01-01'' AS iv FROM p1 ORDER BY ts - timestamptz ''2026-01-01'', id');
-- no encoder for the first column: stock's parallel plan stays, its
-- workers' Sorts included
EXPLAIN (COSTS OFF) SELECT id, int4range(id % 100, id % 100 + 5) AS r FROM p1 ORDER BY int4range(id % 100, id % 100 + 5), id;

-- the workers join, and the joined rows are stored
EXPLAIN (COSTS OFF) SELECT p1.id, p1.i8, p2.w FROM p1 JOIN p2 ON p1.g = p2.g AND p1.id % 100 = p2.id % 100 ORDER BY p2.w COLLATE "C", p1.id;
SELECT par_intake('SELECT p1.id, p1.i8, p2.w FROM p1 JOIN p2 ON p1.g = p2.g AND p1.id % 100 = p2.id % 100 ORDER BY p2.w COLLATE "C", p1.id');
SELECT gs_check('SELECT p1.id, p1.i8, p2.w FROM p1 JOIN p2 ON p1.g = p2.g AND p1.id % 100 = p2.id % 100 ORDER BY p2.w COLLATE "C", p1.id');

-- GroupAggregate, window functions, DISTINCT over parallel input
SET enable_hashagg = off;
EXPLAIN (COSTS OFF) SELECT g, count(*), sum(i8) FROM p1 GROUP BY g;
SELECT gs_check('SELECT g, count(*) AS c, sum(i8) AS s FROM p1 GROUP BY g');
SELECT gs_check('SELECT DISTINCT t COLLATE "C" AS t FROM p1');
RESET enable_hashagg;
SELECT gs_check('SELECT id, g, rank() OVER (PARTITION BY g ORDER BY i8, id) AS r FROM p1 ORDER BY g, r');

-- workers that never start: the leader stores every row
SET max_parallel_workers = 0;
SELECT par_intake('SELECT * FROM p1 ORDER BY i8, id');
SELECT gs_check('SELECT * FROM p1 ORDER BY i8, id');
RESET max_parallel_workers;
-- a leader that does not take part: the workers store every row
SET parallel_leader_participation = off;
SELECT par_intake('SELECT * FROM p1 ORDER BY t COLLATE "C", id');
SELECT gs_check('SELECT * FROM p1 ORDER BY t COLLATE "C", id');
RESET parallel_leader_participation;

-- a budget too small for the planner's estimate: stock's parallel plan,
-- each participant's Sort a GpuSort that writes runs to shared files, which
-- the GpuSort above the Gather merges (sort_spill tests it further)
SET gpusort.max_memory = '1MB';
EXPLAIN (COSTS OFF) SELECT * FROM p1 ORDER BY i8, id;
SELECT gs_check('SELECT * FROM p1 ORDER BY i8, id');
-- an estimate far below the rows that come: the participants run out of
-- room while storing, and each that does sorts its share in runs written
-- to the query's shared files, which the leader merges (sort_spill tests
-- it further)
SELECT par_intake('SELECT * FROM p1 WHERE (id % 3) = 0 ORDER BY i8, id');
SELECT gs_check('SELECT * FROM p1 WHERE (id % 3) = 0 ORDER BY i8, id');
-- the participants' rows would fit the room reserved for them, but not the
-- budget once the sort's arrays over them are counted too: the
-- participants write runs as soon as they see it (not the leader copying
-- them in, nor a serial tuplesort of every row)
SET gpusort.max_memory = '2MB';
SELECT par_intake('SELECT * FROM p1 WHERE (id % 3) = 0 ORDER BY i8, id');
SELECT gs_check('SELECT * FROM p1 WHERE (id % 3) = 0 ORDER BY i8, id');
RESET gpusort.max_memory;

-- an ERROR in a participant ends the query as it does stock's
\set VERBOSITY terse
SELECT count(*) FROM (SELECT id FROM p1 ORDER BY 1 / (id - 30000), id OFFSET 0) s;
SET gpusort.enabled = off;
SELECT count(*) FROM (SELECT id FROM p1 ORDER BY 1 / (id - 30000), id OFFSET 0) s;
SET gpusort.enabled = on;
-- a cancel while the participants store their rows (statement_timeout)
CREATE FUNCTION slow_key(int) RETURNS int LANGUAGE sql PARALLEL SAFE
	AS 'SELECT $1 FROM pg_sleep(0.0005)';
SET statement_timeout = '300ms';
SELECT count(*) FROM (SELECT id FROM p1 ORDER BY slow_key(id) OFFSET 0) s;
RESET statement_timeout;
-- an ERROR above the node while its threads copy the rows into output
-- order: they stop before the rows' shared memory goes, at the top level
-- and in a subtransaction
SELECT count(*) FROM (SELECT id, i8 FROM p1 ORDER BY i8, id OFFSET 0) s WHERE 1 / (s.id - 30000) > -2;
DO $$
BEGIN
	PERFORM count(*) FROM (SELECT id, i8 FROM p1 ORDER BY i8, id OFFSET 0) s WHERE 1 / (s.id - 30000) > -2;
EXCEPTION WHEN division_by_zero THEN
	RAISE NOTICE 'caught: %', SQLERRM;
END
$$;
\set VERBOSITY default
-- and the same session sorts on afterwards
SELECT gs_check('SELECT * FROM p1 ORDER BY i8, id');

-- rescans: the parallel GpuSort as the inner side of a nested loop, rewound
-- for every outer row
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
EXPLAIN (COSTS OFF) SELECT x, s.id FROM (VALUES (1), (2), (3)) v(x), (SELECT id, i8 FROM p1 ORDER BY i8, id) s WHERE s.id % 1000 = x;
SELECT par_intake('SELECT x, s.id FROM (VALUES (1), (2), (3)) v(x), (SELECT id, i8 FROM p1 ORDER BY i8, id) s WHERE s.id % 1000 = x');
SELECT gs_check('SELECT x, s.id FROM (VALUES (1), (2), (3)) v(x), (SELECT id, i8 FROM p1 ORDER BY i8, id) s WHERE s.id % 1000 = x');
SELECT gs_check('SELECT x, s.id FROM (VALUES (1), (2), (3)) v(x), LATERAL (SELECT id, i8 FROM p1 WHERE id < 40 ORDER BY i8, id) s ORDER BY x, s.i8, s.id');
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;
-- an initPlan above and a subquery beside
SELECT gs_check('SELECT id, i8 FROM p1 WHERE i8 > (SELECT avg(i8) FROM p1) ORDER BY i8, id');

-- a serial scan that stock keeps under one Sort (large work_mem) is shared
-- out to workers all the same, for a large enough table; a temporary table
-- (which workers cannot read) stays serial; an initPlan's value reaches the
-- workers through the Gather
CREATE TABLE p3 (id int, i8 int8, t text);
INSERT INTO p3 SELECT i, hashint8(i), md5(i::text) FROM generate_series(1, 200000) i;
ANALYZE p3;
SET work_mem = '1GB';
SET max_parallel_workers_per_gather = 0;
EXPLAIN (COSTS OFF) SELECT * FROM p3 ORDER BY i8;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT * FROM p3 ORDER BY i8;
SELECT par_intake('SELECT * FROM p3 ORDER BY i8, id');
SELECT gs_check('SELECT * FROM p3 ORDER BY i8, id');
SELECT gs_check('SELECT * FROM p3 ORDER BY t COLLATE "C" DESC');
-- runs of equal keys (the key holds 16 bytes of the string), found on threads
SELECT gs_check('SELECT id, repeat(''x'', 16) || (id % 1000) AS s FROM p3 ORDER BY (repeat(''x'', 16) || (id % 1000)) COLLATE "C", i8, id');
CREATE TEMP TABLE p3t AS SELECT * FROM p3;
ANALYZE p3t;
EXPLAIN (COSTS OFF) SELECT * FROM p3t ORDER BY i8;
SELECT * FROM explain_masked('EXPLAIN (COSTS OFF) SELECT * FROM p3 WHERE i8 > (SELECT avg(i8) FROM p3) ORDER BY i8');
SELECT gs_check('SELECT * FROM p3 WHERE i8 > (SELECT avg(i8) FROM p3) ORDER BY i8, id');
RESET work_mem;
DROP TABLE p3t;

-- ORDER BY col COLLATE "C" at the top of the plan: the sort reads col with
-- that collation, and no row carries a copy of col (see VERBOSE's Output);
-- the rows are stock's (gpusort on, then off), in the parallel shape and,
-- through cursors (which never run parallel plans), in the serial one
EXPLAIN (VERBOSE, COSTS OFF) SELECT id, t FROM p1 ORDER BY t COLLATE "C" DESC, id OFFSET 39990;
SELECT id, t FROM p1 ORDER BY t COLLATE "C" DESC, id OFFSET 39990;
SET gpusort.enabled = off;
SELECT id, t FROM p1 ORDER BY t COLLATE "C" DESC, id OFFSET 39990;
SET gpusort.enabled = on;
SELECT gs_check('SELECT id, t FROM p1 ORDER BY t COLLATE "C" DESC, id', top => true);
SELECT gs_check('SELECT p1.t, p2.w, p1.id FROM p1 JOIN p2 ON p1.g = p2.g AND p1.id % 100 = p2.id % 100 ORDER BY p2.w COLLATE "C", p1.t COLLATE "C" DESC, p1.id', top => true);
SET max_parallel_workers_per_gather = 0;
SELECT gs_check('SELECT t, id FROM p1 ORDER BY t COLLATE "C" NULLS FIRST, id OFFSET 100 LIMIT 30000', top => true);
SET max_parallel_workers_per_gather = 2;
SELECT gs_check('SELECT p1.id, p2.w FROM p1 JOIN p2 ON p1.id = p2.id ORDER BY p2.w COLLATE "C", p1.id', top => true);
EXPLAIN (VERBOSE, COSTS OFF) SELECT p1.t, p2.w, p1.id FROM p1 JOIN p2 ON p1.g = p2.g AND p1.id % 100 = p2.id % 100 ORDER BY p2.w COLLATE "C", p1.t COLLATE "C" DESC, p1.id;

-- gpusort.parallel = off: no rows in shared memory; a sort this small by
-- estimate keeps stock's workers, each passing its few rows on through the
-- Gather to one GpuSort (or writing runs where they outgrow the budget)
SET gpusort.parallel = off;
EXPLAIN (COSTS OFF) SELECT * FROM p1 ORDER BY i8, id;
SELECT gs_check('SELECT * FROM p1 ORDER BY i8, id');
SET gpusort.parallel = on;

-- under a LIMIT the workers' top-N Sorts stay
EXPLAIN (COSTS OFF) SELECT * FROM p1 ORDER BY i8, id LIMIT 10;

-- rows that take more than 64MB of shared memory: the leader gives their
-- pages back on threads before it detaches (GS_PAR_RELEASE_MIN), and the
-- workers keep their areas mapped until they exit.  The rows must be
-- whole for as long as the GpuSort may return them: to the end of the
-- query, through a rescan that returns them again from memory, and in a
-- second sort of the same session
CREATE TABLE p4 (id int, i8 int8, pad text);
INSERT INTO p4 SELECT i, hashint8(i), repeat(md5(i::text), 10) FROM generate_series(1, 240000) i;
ANALYZE p4;
SET work_mem = '1GB';
SELECT par_intake('SELECT * FROM p4 ORDER BY i8, id');
SELECT gs_check('SELECT id, i8, md5(pad) AS h FROM (SELECT * FROM p4 ORDER BY i8, id OFFSET 0) s');
SELECT gs_check('SELECT id, md5(pad) AS h FROM (SELECT * FROM p4 ORDER BY pad COLLATE "C" DESC, id OFFSET 0) s');
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
SELECT par_intake('SELECT x, s.id, s.pad FROM (VALUES (1), (2), (3)) v(x), (SELECT id, i8, pad FROM p4 ORDER BY i8, id) s WHERE s.id % 1000 = x');
SELECT gs_check('SELECT x, s.id, md5(s.pad) AS h FROM (VALUES (1), (2), (3)) v(x), (SELECT id, i8, pad FROM p4 ORDER BY i8, id) s WHERE s.id % 1000 = x');
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;
RESET work_mem;

DROP FUNCTION slow_key(int);
DROP FUNCTION par_intake(text);
DROP TABLE p1, p2, p3, p4;
