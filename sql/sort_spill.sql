-- GpuSort beyond gpusort.max_memory: the rows that outgrow the budget are
-- sorted in runs written to temp files and merged (sortspill.c).  Every
-- result is compared with stock's, whole and in order: every key type,
-- DESC and NULLS, text under C.UTF-8, C and en_US.UTF-8, ties across run
-- boundaries, several key columns, windows and GROUP BY over a spilled
-- sort, SCROLL cursors, mark/restore under a merge join, rescans, stale
-- statistics, temp_file_limit and a cancel during the merge.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS gpusort;
RESET client_min_messages;
LOAD 'gpusort';
SET gpusort.min_rows = 0;
SET gpusort.device = cpu;
SET max_parallel_workers_per_gather = 0;
-- gs_check(q) and explain_masked(q), shared by the sort tests: test/sort/sql/gs_check.sql
\getenv abs_srcdir PG_ABS_SRCDIR
\set gs_check_sql :abs_srcdir '/test/sort/sql/gs_check.sql'
\set ECHO none
\i :gs_check_sql
\set ECHO all

-- spill(q): the runs q's (first) GpuSort wrote and merged, from EXPLAIN
-- ANALYZE: '5..20 runs' when between 5 and 20, else the number; the last
-- rows stay in memory, one more way of the merge
CREATE FUNCTION spill(q text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
	ln text;
	m text[];
BEGIN
	FOR ln IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		m := regexp_match(ln, 'Spill: (\d+) runs, \d+kB written, merged (\d+) ways(.*)$');
		IF m IS NOT NULL THEN
			RETURN CASE WHEN m[1]::int BETWEEN 5 AND 20 THEN '5..20 runs'
						WHEN m[1]::int > 32 THEN 'more than 32 runs'
						ELSE m[1] || ' runs' END ||
				CASE WHEN m[2]::int = m[1]::int + 1 THEN ', and the rows in memory, merged'
					 WHEN m[2]::int < m[1]::int AND m[2]::int <= 33 THEN ', merged at most 33 ways'
					 ELSE ', merged ' || m[2] || ' ways' END ||
				m[3];
		END IF;
	END LOOP;
	RETURN 'no runs';
END
$f$;

-- temp files of the server now (superuser)
CREATE FUNCTION temp_files() RETURNS bigint LANGUAGE sql AS
$$ SELECT count(*) FROM pg_ls_tmpdir() $$;

CREATE TABLE sp (id int, i2 int2, i4 int4, i8 int8, f4 float4, f8 float8,
				 n numeric, t text, lp text, ts timestamptz, d date, u uuid,
				 b bool, by bytea, k int4);
INSERT INTO sp
SELECT i,
	   CASE WHEN i % 97 = 0 THEN NULL ELSE (hashint4(i) % 30000)::int2 END,
	   CASE WHEN i % 89 = 0 THEN NULL ELSE hashint4(i * 7) END,
	   CASE WHEN i % 83 = 0 THEN NULL ELSE hashint8(i) END,
	   CASE WHEN i % 79 = 0 THEN NULL WHEN i % 1000 = 3 THEN 'NaN'
			WHEN i % 1000 = 4 THEN '-0' ELSE (hashint4(-i) % 100000) / 7.0 END,
	   CASE WHEN i % 73 = 0 THEN NULL WHEN i % 1000 = 5 THEN '-Infinity'
			ELSE (hashint4(i + 5) % 100000) / 3.0 END,
	   CASE WHEN i % 71 = 0 THEN NULL WHEN i % 1000 = 6 THEN 'NaN'
			ELSE (hashint4(i * 3) % 1000000) / 100.0 END,
	   CASE WHEN i % 67 = 0 THEN NULL ELSE md5((i % 20000)::text) END,
	   -- a prefix longer than any key: the comparators order these
	   'a long common prefix, longer than the key: ' || (hashint4(i) % 5000)::text,
	   timestamptz '2026-01-01' + (hashint4(i) % 100000) * interval '1 minute',
	   date '2000-01-01' + (hashint4(i * 11) % 5000),
	   md5(i::text)::uuid,
	   CASE WHEN i % 61 = 0 THEN NULL ELSE i % 3 = 0 END,
	   decode(md5((i % 7000)::text), 'hex'),
	   i % 7
  FROM generate_series(1, 36000) i;
ANALYZE sp;

-- within the planner's estimate: one sort in memory
SELECT spill('SELECT * FROM sp ORDER BY i8, id');
-- a small budget: the planner's estimate is past it, so the Sort becomes a
-- GpuSort that writes runs (a stock Sort without gpusort)
SET gpusort.max_memory = '1MB';
EXPLAIN (COSTS OFF) SELECT * FROM sp ORDER BY i8, id;
SELECT regexp_replace(explain_masked, '\d+', 'N', 'g') AS plan
  FROM explain_masked('EXPLAIN (ANALYZE, BUFFERS OFF, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM sp ORDER BY i8, id');
SELECT spill('SELECT * FROM sp ORDER BY i8, id');
SELECT spill('SELECT * FROM sp ORDER BY t, id');
-- the other formats' properties
SELECT regexp_replace(l, '\d+', 'N', 'g') AS yaml
  FROM explain_masked('EXPLAIN (ANALYZE, FORMAT YAML, BUFFERS OFF, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM sp ORDER BY t, id') AS e,
	   regexp_split_to_table(e, '\n') AS l
 WHERE l ~ 'Spill|Merge';

-- every key type, both directions, NULLs first and last
SELECT gs_check('SELECT * FROM sp ORDER BY i2, id');
SELECT gs_check('SELECT * FROM sp ORDER BY i4 DESC, id');
SELECT gs_check('SELECT * FROM sp ORDER BY i8 NULLS FIRST, id');
SELECT gs_check('SELECT * FROM sp ORDER BY f4, id DESC');
SELECT gs_check('SELECT * FROM sp ORDER BY f8 DESC NULLS LAST, id');
SELECT gs_check('SELECT * FROM sp ORDER BY n, id');
SELECT gs_check('SELECT * FROM sp ORDER BY n DESC, id');
SELECT gs_check('SELECT * FROM sp ORDER BY ts, id');
SELECT gs_check('SELECT * FROM sp ORDER BY d DESC, id');
SELECT gs_check('SELECT * FROM sp ORDER BY u');
SELECT gs_check('SELECT * FROM sp ORDER BY b, id');
SELECT gs_check('SELECT * FROM sp ORDER BY by, id');
SELECT gs_check('SELECT * FROM sp ORDER BY by DESC, id');
-- text: the database's C.UTF-8 (bytes), C, en_US.UTF-8 (strxfrm prefixes,
-- each run checked with strcoll, the merge's ties and prefix differences
-- settled by the comparators)
SELECT gs_check('SELECT * FROM sp ORDER BY t, id');
SELECT gs_check('SELECT * FROM sp ORDER BY t DESC NULLS LAST, id');
SELECT gs_check('SELECT * FROM sp ORDER BY t COLLATE "C", id');
SELECT gs_check('SELECT * FROM sp ORDER BY t COLLATE "en_US.utf8", id');
SELECT gs_check('SELECT * FROM sp ORDER BY t COLLATE "en_US.utf8" DESC, id');
SELECT spill('SELECT * FROM sp ORDER BY t COLLATE "en_US.utf8", id');
-- a strcoll disagreement in every run (gpusort.debug_scramble_keys): each
-- run is repaired, each row written with its own key
SET gpusort.debug_scramble_keys = on;
SELECT gs_check('SELECT * FROM sp ORDER BY t COLLATE "en_US.utf8", id');
RESET gpusort.debug_scramble_keys;
-- ties across every run boundary: a key of 7 values, a prefix longer
-- than the key, whole rows equal on the sort columns
SELECT gs_check('SELECT * FROM sp ORDER BY k, id');
SELECT gs_check('SELECT k, i2 FROM sp ORDER BY k, i2');
SELECT gs_check('SELECT k FROM sp ORDER BY k DESC');
SELECT gs_check('SELECT * FROM sp ORDER BY lp, id');
SELECT gs_check('SELECT * FROM sp ORDER BY lp COLLATE "en_US.utf8" DESC, id');
SELECT gs_check('SELECT lp FROM sp ORDER BY lp');
-- several key columns, the later ones past the key
SELECT gs_check('SELECT * FROM sp ORDER BY k, b, i2, id');
SELECT gs_check('SELECT * FROM sp ORDER BY k DESC, t, i8 NULLS FIRST, id');
SELECT gs_check('SELECT * FROM sp ORDER BY lp, n DESC, id');
-- columns of few values sharing prefixes, under a libc collation: the
-- runs' key (a strxfrm prefix of the first, no ranks) would leave each run
-- to the comparators, so a run is sorted as a sort that fits (ranks of
-- country and city, name's prefix checked with strcoll) and its rows are
-- written with their runs' keys
CREATE TABLE ccn AS
SELECT i AS id,
	   (ARRAY['France', 'Deutschland', 'Österreich', 'Ísland', 'Česko', 'España'])[1 + (hashint4(i) & 65535) % 6] AS country,
	   (ARRAY['Saint-Étienne', 'L''Haÿ-les-Roses', 'St. Louis', 'St Louis', 'Saint Louis', 'Malmö', 'Münster', 'München'])[1 + (hashint4(i + 7) & 65535) % 8] AS city,
	   (ARRAY['Anne-Marie', 'Jean-Luc', 'Zoë', 'Mary Jo', 'Mary-Jo', 'Seán'])[1 + (hashint4(i + 11) & 65535) % 6] || ' ' ||
	   (ARRAY['O''Brien', 'OBrien', 'O Brien', 'Lefèvre-Durand', 'Lefevre Durand', 'Núñez'])[1 + (hashint4(i + 13) & 65535) % 6] || ' ' ||
	   (hashint4(i + 17) & 65535) % 500 AS name
  FROM generate_series(1, 60000) i;
ANALYZE ccn;
SELECT spill('SELECT * FROM ccn ORDER BY country COLLATE "en_US.utf8", city COLLATE "en_US.utf8", name COLLATE "en_US.utf8"');
SELECT gs_check('SELECT * FROM ccn ORDER BY country COLLATE "en_US.utf8", city COLLATE "en_US.utf8", name COLLATE "en_US.utf8", id');
SELECT gs_check('SELECT * FROM ccn ORDER BY country COLLATE "en_US.utf8" DESC, city COLLATE "en_US.utf8", name COLLATE "en_US.utf8" DESC, id');
SET gpusort.debug_scramble_keys = on;
SELECT gs_check('SELECT * FROM ccn ORDER BY country COLLATE "en_US.utf8", city COLLATE "en_US.utf8", name COLLATE "en_US.utf8", id');
RESET gpusort.debug_scramble_keys;

-- more runs than one merge reads at once: 32 of them merged into one
-- longer run first
SELECT spill('SELECT g, md5(g::text) AS m FROM generate_series(1, 400000) g ORDER BY 2');
SELECT gs_check('SELECT g, md5(g::text) AS m FROM generate_series(1, 400000) g ORDER BY 2');

-- the batched merge (spillbatch.c), where the keys decide the order and
-- there are 4 threads or more: the runs read a window at a time (about 15
-- windows a run here), the rows up to the least of the windows' last rows
-- cut into key ranges that threads merge.  Ties across the runs and the
-- windows (50 values of k), DESC and NULLs, several exact key columns,
-- whole rows equal on the sort columns; a rescan and a SCROLL cursor; on
-- 1 thread (the tree of losers); more than 32 runs
CREATE TABLE bm AS
SELECT i AS id, (hashint4(i) % 50)::int4 AS k,
	   CASE WHEN i % 101 = 0 THEN NULL ELSE (hashint4(i * 3) % 1000)::int2 END AS v,
	   repeat('x', 100 + i % 50) AS pad
  FROM generate_series(1, 150000) i;
ANALYZE bm;
SET gpusort.max_memory = '4MB';
SET gpusort.cpu_threads = 4;
SELECT spill('SELECT * FROM bm ORDER BY k, id');
-- (on threads, in several batches, each cut into several ranges)
DO $$
DECLARE
	ln text;
	m text[];
BEGIN
	FOR ln IN EXPLAIN (ANALYZE, FORMAT JSON, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM bm ORDER BY k, id LOOP
		m := coalesce(regexp_match(ln, '"Merge Threads": (\d+),\s+"Merge Batches": (\d+),\s+"Merge Key Ranges": (\d+)'), m);
	END LOOP;
	RAISE NOTICE 'threads: %, batches: %, ranges: %',
		m[1]::int > 1, m[2]::int > 1, m[3]::int > m[2]::int;
END
$$;
SELECT gs_check('SELECT * FROM bm ORDER BY k, id');
SELECT gs_check('SELECT * FROM bm ORDER BY k DESC, v NULLS FIRST, id');
SELECT gs_check('SELECT k, v FROM bm ORDER BY v DESC NULLS LAST, k');
SELECT gs_check('SELECT s.x, (SELECT md5(string_agg(q.id::text, '','')) FROM (SELECT id, k FROM bm ORDER BY k, id OFFSET 0) q WHERE q.id % 3 = s.x - 1) AS v FROM generate_series(1, 3) s(x)');
SELECT gs_cursor_check('SELECT id, k, v FROM bm WHERE id % 4 = 0 ORDER BY v, id DESC');
-- the next batch is read and merged in the background (a driver thread
-- and its team) while the rows of the batch before are returned: rescans
-- that start over mid-batch after a LIMIT, an ERROR mid-merge, and a
-- cursor read on after a subtransaction's abort stopped the driver (the
-- backend then prepares the batch itself)
SELECT gs_check('SELECT s.x, (SELECT q.id FROM (SELECT id, k FROM bm ORDER BY k DESC, id OFFSET 0) q WHERE q.id % 5 = s.x OFFSET 20000 LIMIT 1) AS v FROM generate_series(0, 4) s(x)');
SELECT id, 1 / (id - 77777) FROM (SELECT * FROM bm ORDER BY k, id OFFSET 0) q;
SELECT temp_files() AS temp_files,
	   (SELECT bytes FROM gpusort_memory() WHERE name = 'reserved_session') AS reserved;
BEGIN;
DECLARE cb NO SCROLL CURSOR FOR SELECT id, k FROM bm ORDER BY k, id;
FETCH 2 FROM cb;
MOVE 60000 IN cb;
FETCH 2 FROM cb;
SAVEPOINT a;
SELECT 1 / 0;
ROLLBACK TO a;
FETCH 2 FROM cb;
MOVE 50000 IN cb;
FETCH 2 FROM cb;
COMMIT;
-- (stock's rows at those places)
SET gpusort.enabled = off;
SELECT id, k FROM (SELECT id, k, row_number() OVER (ORDER BY k, id) AS n FROM bm) q
 WHERE n IN (1, 2, 60003, 60004, 60005, 60006, 110007, 110008) ORDER BY n;
RESET gpusort.enabled;
SET gpusort.cpu_threads = 1;
SELECT spill('SELECT * FROM bm ORDER BY v, k DESC, id');
SELECT gs_check('SELECT * FROM bm ORDER BY v, k DESC, id');
SET gpusort.cpu_threads = 4;
SET gpusort.max_memory = '1MB';
SELECT spill('SELECT g, hashint4(g) AS h FROM generate_series(1, 400000) g ORDER BY 2, 1');
SELECT gs_check('SELECT g, hashint4(g) AS h FROM generate_series(1, 400000) g ORDER BY 2, 1');
-- rows longer than a window (384 kB): it grows
SELECT spill('SELECT g, CASE WHEN g % 40000 = 0 THEN repeat(md5(g::text), 12000) END AS big FROM generate_series(1, 200000) g ORDER BY hashint4(g), g');
SELECT gs_check('SELECT g, CASE WHEN g % 40000 = 0 THEN repeat(md5(g::text), 12000) END AS big FROM generate_series(1, 200000) g ORDER BY hashint4(g), g');
RESET gpusort.cpu_threads;

-- windows and GROUP BY over a spilled sort
SELECT gs_check('SELECT id, k, row_number() OVER (PARTITION BY k ORDER BY i8, id) AS r FROM sp ORDER BY k, r');
SELECT gs_check('SELECT id, sum(i4) OVER (ORDER BY t, id) AS s FROM sp ORDER BY id');
SET enable_hashagg = off;
SELECT gs_check('SELECT lp, count(*) AS c, sum(i8) AS s FROM sp GROUP BY lp ORDER BY lp');
SELECT gs_check('SELECT DISTINCT t FROM sp ORDER BY t');
RESET enable_hashagg;

-- SCROLL cursors (the merge into a tuplestore), and a forward one
SELECT spill('SELECT * FROM sp ORDER BY t, id');
SELECT gs_cursor_check('SELECT * FROM sp ORDER BY t, id');
SELECT gs_cursor_check('SELECT * FROM sp ORDER BY lp DESC, id');
BEGIN;
DECLARE c CURSOR FOR SELECT id, t FROM sp ORDER BY t DESC, id;
FETCH 3 FROM c;
MOVE 30000 IN c;
FETCH 2 FROM c;
COMMIT;

-- mark/restore under a merge join: both sides spill, many duplicates
-- (work_mem for stock's plan: no Materialize over the inner sort)
SET enable_hashjoin = off;
SET enable_nestloop = off;
SET work_mem = '64MB';
EXPLAIN (COSTS OFF) SELECT a.id, b.id FROM sp a JOIN sp b ON a.k = b.k AND a.lp = b.lp;
SELECT gs_check('SELECT a.id AS a, b.id AS b FROM sp a JOIN sp b ON a.k = b.k AND a.lp = b.lp ORDER BY a.id, b.id');
SELECT gs_check('SELECT a.id AS a, a.t, b.id AS b FROM sp a JOIN sp b ON a.t = b.t ORDER BY 1, 3');
RESET work_mem;
RESET enable_nestloop;
RESET enable_hashjoin;

-- rescans: the merge starts over for each outer row (the sort's input
-- unchanged), or the sort runs again (its input's parameter changed)
SELECT gs_check('SELECT s.x, (SELECT string_agg(q.id::text, '','') FROM (SELECT id, t FROM sp ORDER BY t, id OFFSET 0) q WHERE q.id % 9000 = s.x) AS v FROM generate_series(1, 3) s(x)');
SELECT gs_check('SELECT s.x, (SELECT md5(string_agg(q.t, '','')) FROM (SELECT t FROM sp WHERE id % 3 <> s.x ORDER BY t OFFSET 0) q) AS v FROM generate_series(1, 3) s(x)');

-- stale statistics: the planner expects 1% of the rows, within the
-- budget; the sort outgrows it while reading and turns to runs
CREATE TABLE stale (id int, t text, v int8) WITH (autovacuum_enabled = off);
INSERT INTO stale SELECT i, md5(i::text), hashint4(i) FROM generate_series(1, 600) i;
ANALYZE stale;
INSERT INTO stale SELECT i, md5(i::text), hashint4(i) FROM generate_series(601, 60000) i;
EXPLAIN (COSTS OFF) SELECT * FROM stale ORDER BY t;
SELECT spill('SELECT * FROM stale ORDER BY t');
SELECT gs_check('SELECT * FROM stale ORDER BY t');
SELECT gs_check('SELECT * FROM stale ORDER BY v DESC, id');

-- a Gather Merge past the budget: each participant's GpuSort writes its
-- share as runs to the query's shared files, and the GpuSort above the
-- Gather merges all of them (sortshared.c)
CREATE FUNCTION shared_spill(q text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
	ln text;
	m text[];
	wrote boolean := false;
BEGIN
	FOR ln IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		IF ln ~ 'Spill: \d+ runs, \d+kB written to shared files' THEN
			wrote := true;
		END IF;
		m := coalesce(regexp_match(ln, 'Spill: (\d+) runs of (\d+) participants, (\d+) runs of its own, merged (\d+) ways'), m);
	END LOOP;
	IF m IS NULL THEN
		RETURN 'no shared runs';
	END IF;
	-- (a participant whose share fit its part passes it on: the merger's
	-- rows in memory are one way more)
	RETURN format('participants wrote runs: %s, merged: %s, its own runs: %s, all merged: %s',
				  wrote, m[1]::int > 1, m[3], m[4]::int >= m[1]::int + m[3]::int);
END
$f$;
ALTER TABLE sp SET (parallel_workers = 2);
-- (gpusort.parallel would store small sorts' rows in shared memory instead)
SET gpusort.parallel = off;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
EXPLAIN (COSTS OFF) SELECT * FROM sp ORDER BY i8, id;
SELECT shared_spill('SELECT * FROM sp ORDER BY i8, id');
SELECT gs_check('SELECT * FROM sp ORDER BY i8, id');
SELECT gs_check('SELECT * FROM sp ORDER BY f8 DESC NULLS LAST, id');
SELECT gs_check('SELECT * FROM sp ORDER BY n, id');
SELECT gs_check('SELECT * FROM sp ORDER BY t, id');
SELECT gs_check('SELECT * FROM sp ORDER BY t COLLATE "en_US.utf8" DESC, id');
SELECT gs_check('SELECT * FROM sp ORDER BY lp, id');
SELECT gs_check('SELECT k, i2 FROM sp ORDER BY k, i2');
SELECT gs_check('SELECT * FROM sp ORDER BY k DESC, t, i8 NULLS FIRST, id');
-- sorted on an expression the workers compute: a Result projects it away
EXPLAIN (COSTS OFF) SELECT id FROM sp ORDER BY md5(t), id;
SELECT gs_check('SELECT id FROM sp ORDER BY md5(t), id');
-- the leader alone (no worker may start), and the workers alone
SET max_parallel_workers = 0;
SELECT shared_spill('SELECT * FROM sp ORDER BY i8, id');
SELECT gs_check('SELECT * FROM sp ORDER BY i8, id');
RESET max_parallel_workers;
SET parallel_leader_participation = off;
SELECT gs_check('SELECT * FROM sp ORDER BY t, id');
RESET parallel_leader_participation;
-- rescans: the participants sort again, also after the Limit above has
-- shut the Gather down (its shared files with it)
SELECT gs_check('SELECT s.x, (SELECT md5(string_agg(q.t, '','')) FROM (SELECT t FROM sp WHERE id % 3 <> s.x ORDER BY t OFFSET 0) q) AS v FROM generate_series(1, 3) s(x)');
EXPLAIN (COSTS OFF) SELECT s.x, q.id FROM generate_series(1, 3) s(x), LATERAL (SELECT id FROM (SELECT id, i8 FROM sp ORDER BY i8, id OFFSET 1) z WHERE z.id % 3 = s.x - 1 LIMIT 10) q;
SELECT gs_check('SELECT s.x, q.id FROM generate_series(1, 3) s(x), LATERAL (SELECT id FROM (SELECT id, i8 FROM sp ORDER BY i8, id OFFSET 1) z WHERE z.id % 3 = s.x - 1 LIMIT 10) q');
-- stale statistics: estimated within the budget, too small for a GPU; the
-- participants' shares outgrow their part of it and become runs
ALTER TABLE stale SET (parallel_workers = 2);
EXPLAIN (COSTS OFF) SELECT * FROM stale ORDER BY t;
SELECT shared_spill('SELECT * FROM stale ORDER BY t');
SELECT gs_check('SELECT * FROM stale ORDER BY t');
SELECT gs_check('SELECT * FROM stale ORDER BY v DESC, id');
-- the participants' runs fill temp_file_limit: stock's ERROR, raised in a
-- worker or the leader; a cancel during the merge; neither leaves a file
\set VERBOSITY sqlstate
SET temp_file_limit = '1MB';
SELECT count(*) FROM (SELECT * FROM sp ORDER BY t, id OFFSET 0) q;
RESET temp_file_limit;
\set VERBOSITY default
SELECT temp_files() AS temp_files;
SET statement_timeout = '1s';
SELECT count(*) FROM (SELECT id, pg_sleep(0.001) FROM (SELECT * FROM sp ORDER BY t, id OFFSET 0) s) q;
RESET statement_timeout;
SELECT temp_files() AS temp_files,
	   (SELECT bytes FROM gpusort_memory() WHERE name = 'reserved_session') AS reserved;
-- the parallel intake (gpusort.parallel = on: GpuSortStore) under a
-- misestimated filter: the planner expects 0.5% of the rows, which fit the
-- budget, so the participants store their rows in shared memory; their
-- shares outgrow the room reserved for them, and each participant that runs
-- out sorts its share in runs written to the shared files, which the
-- GpuSort above merges, no row through the Gather (sortpar.c)
CREATE FUNCTION intake_spill(q text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
	ln text;
	m text[];
	wrote boolean := false;
	passed boolean := false;
BEGIN
	FOR ln IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		IF ln ~ '(Leader|Worker \d+): \d+ rows written in \d+ runs, \d+kB, to shared files' THEN
			wrote := true;
		ELSIF ln ~ 'Rows Stored: none' OR ln ~ 'GpuSort: tuplesort' THEN
			passed := true;
		END IF;
		m := coalesce(regexp_match(ln, 'Spill: (\d+) runs of (\d+) participants, (\d+) runs of its own, merged (\d+) ways'), m);
	END LOOP;
	IF m IS NULL THEN
		RETURN format('no shared runs (participants wrote runs: %s, rows passed on: %s)', wrote, passed);
	END IF;
	-- rows of a participant that finished within its room stay in shared
	-- memory, and may make runs of the merger's own: how many varies
	RETURN format('participants wrote runs: %s, rows passed on: %s, all merged: %s',
				  wrote, passed, m[4]::int >= m[1]::int + m[3]::int);
END
$f$;
SET gpusort.parallel = on;
EXPLAIN (COSTS OFF) SELECT * FROM sp WHERE (id % 3) = 0 ORDER BY i8, id;
SELECT intake_spill('SELECT * FROM sp WHERE (id % 3) = 0 ORDER BY i8, id');
SELECT gs_check('SELECT * FROM sp WHERE (id % 3) = 0 ORDER BY i8, id');
SELECT gs_check('SELECT * FROM sp WHERE (id % 3) = 0 ORDER BY t COLLATE "en_US.utf8" DESC, id');
SELECT gs_check('SELECT * FROM sp WHERE (id % 3) = 0 ORDER BY k DESC, t, i8 NULLS FIRST, id');
SELECT gs_check('SELECT * FROM sp WHERE (id % 3) = 0 ORDER BY lp, id');
-- the leader alone, and the workers alone
SET max_parallel_workers = 0;
SELECT intake_spill('SELECT * FROM sp WHERE (id % 3) = 0 ORDER BY i8, id');
SELECT gs_check('SELECT * FROM sp WHERE (id % 3) = 0 ORDER BY i8, id');
RESET max_parallel_workers;
SET parallel_leader_participation = off;
SELECT gs_check('SELECT * FROM sp WHERE (id % 3) = 0 ORDER BY t, id');
RESET parallel_leader_participation;
-- rescans: the Gather's rescan deletes the last scan's runs
SELECT gs_check('SELECT s.x, (SELECT md5(string_agg(q.t, '','')) FROM (SELECT t FROM sp WHERE (id % 3) = 0 AND id % 5 <> s.x ORDER BY t, id OFFSET 0) q) AS v FROM generate_series(1, 3) s(x)');
-- temp_file_limit filled by the participants' runs, and a cancel during the
-- merge: neither leaves a file
\set VERBOSITY sqlstate
SET temp_file_limit = '256kB';
SELECT count(*) FROM (SELECT * FROM sp WHERE (id % 3) = 0 ORDER BY t, id OFFSET 0) q;
RESET temp_file_limit;
\set VERBOSITY default
SELECT temp_files() AS temp_files;
SET statement_timeout = '1s';
SELECT count(*) FROM (SELECT id, pg_sleep(0.001) FROM (SELECT * FROM sp WHERE (id % 3) = 0 ORDER BY t, id OFFSET 0) s) q;
RESET statement_timeout;
SELECT temp_files() AS temp_files,
	   (SELECT bytes FROM gpusort_memory() WHERE name = 'reserved_session') AS reserved;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
SET max_parallel_workers_per_gather = 0;
RESET gpusort.parallel;
ALTER TABLE sp RESET (parallel_workers);
ALTER TABLE stale RESET (parallel_workers);

-- temp_file_limit: stock's ERROR (its SQLSTATE: PostgreSQL 18 quotes the
-- setting's name in the message), with GpuSort and without, and no temp
-- file or reservation left behind
\set VERBOSITY sqlstate
SET temp_file_limit = '1MB';
SELECT count(*) FROM (SELECT * FROM sp ORDER BY t, id OFFSET 0) q;
SET gpusort.enabled = off;
SELECT count(*) FROM (SELECT * FROM sp ORDER BY t, id OFFSET 0) q;
RESET gpusort.enabled;
RESET temp_file_limit;
\set VERBOSITY default
SELECT temp_files() AS temp_files,
	   (SELECT bytes FROM gpusort_memory() WHERE name = 'reserved_session') AS reserved;

-- a cancel during the merge (the rows come slowly): the same
SET statement_timeout = '1s';
SELECT count(*) FROM (SELECT id, pg_sleep(0.001) FROM (SELECT * FROM sp ORDER BY t, id OFFSET 0) s) q;
RESET statement_timeout;
SELECT temp_files() AS temp_files,
	   (SELECT bytes FROM gpusort_memory() WHERE name = 'reserved_session') AS reserved;
-- the same during a batched merge on threads (the keys decide)
SET gpusort.cpu_threads = 4;
SET statement_timeout = '1s';
SELECT count(*) FROM (SELECT id, pg_sleep(0.001) FROM (SELECT * FROM sp ORDER BY i8, id OFFSET 0) s) q;
RESET statement_timeout;
RESET gpusort.cpu_threads;
SELECT temp_files() AS temp_files,
	   (SELECT bytes FROM gpusort_memory() WHERE name = 'reserved_session') AS reserved;

-- a bounded sort estimated past the budget keeps stock's top-N Sort
SELECT spill('SELECT * FROM sp ORDER BY t, id LIMIT 10');
SELECT gs_check('SELECT * FROM sp ORDER BY t, id LIMIT 10');
-- the session still sorts in memory, and spills, with the same results
RESET gpusort.max_memory;
SELECT spill('SELECT * FROM sp ORDER BY t, id');
SELECT gs_check('SELECT * FROM sp ORDER BY t, id');
DROP TABLE sp, stale, ccn;
