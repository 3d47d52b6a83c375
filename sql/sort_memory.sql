-- GpuSort's memory: gpusort_memory() shows the budgets, where they come
-- from (the cgroup's limit or physical memory, less shared_buffers) and
-- what the server's sorts hold; every sort reserves its rows' memory from
-- the server-wide account (gpusort.max_total_memory) and gives it back at
-- its end, on an ERROR too; a sort the account has no room for runs as
-- stock's Sort does (tuplesort within work_mem), serial or parallel, with
-- stock's results.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS gpusort;
RESET client_min_messages;
LOAD 'gpusort';
SET gpusort.min_rows = 0;
SET gpusort.device = cpu;
-- gs_check(q) and explain_masked(q), shared by the sort tests: test/sort/sql/gs_check.sql
\getenv abs_srcdir PG_ABS_SRCDIR
\set gs_check_sql :abs_srcdir '/test/sort/sql/gs_check.sql'
\set ECHO none
\i :gs_check_sql
\set ECHO all

-- mem(name): one figure of gpusort_memory()
CREATE FUNCTION mem(n text) RETURNS bigint LANGUAGE sql AS
$$ SELECT bytes FROM gpusort_memory() WHERE name = n $$;

-- the rows; what depends on the machine is hidden
SELECT name, bytes IS NOT NULL AS has_bytes FROM gpusort_memory();
SELECT mem('available') > 0 AS available,
	   mem('max_memory') = mem('available') / 4 AS quarter,
	   mem('max_total_memory') = mem('available') / 2 AS half,
	   (SELECT detail ~ '^(cgroup v[12]|physical memory): ' FROM gpusort_memory()
		 WHERE name = 'available') AS source_named;
-- gpusort.huge_pages: on and off say so; auto advises huge pages only where
-- the kernel's transparent_hugepage policy lets a fault in an advised range
-- take small pages rather than compact memory (defrag = defer or never) and
-- no balloon hands free pages back to a hypervisor, which the test reads
-- from the same files; a wrong value is refused
SET gpusort.huge_pages = on;
SELECT detail FROM gpusort_memory() WHERE name = 'huge_pages';
SET gpusort.huge_pages = off;
SELECT detail FROM gpusort_memory() WHERE name = 'huge_pages';
SET gpusort.huge_pages = sometimes;
RESET gpusort.huge_pages;
WITH thp AS (
  SELECT substring(pg_read_file('/sys/kernel/mm/transparent_hugepage/enabled', 0, 200, true)
				   FROM '\[([a-z+]+)\]') AS enabled,
		 substring(pg_read_file('/sys/kernel/mm/transparent_hugepage/defrag', 0, 200, true)
				   FROM '\[([a-z+]+)\]') AS defrag),
	 reporting AS (
  SELECT coalesce(bool_or(substr(pg_read_file('/sys/bus/virtio/devices/' || d || '/features', 0, 200, true), 6, 1) = '1'),
				  false) AS reported
	FROM pg_ls_dir('/sys/bus/virtio/devices', true, false) AS d
   WHERE pg_read_file('/sys/bus/virtio/devices/' || d || '/device', 0, 200, true) = E'0x0005\n'),
	 expect AS (
  SELECT enabled, defrag, reported, enabled IN ('always', 'madvise') AS eligible,
		 defrag NOT IN ('defer', 'never') AS stalls FROM thp, reporting)
SELECT detail = CASE
		 WHEN enabled IS NULL OR defrag IS NULL
		 THEN 'not advised: auto: no transparent huge pages in /sys/kernel/mm/transparent_hugepage/'
		 ELSE CASE WHEN eligible AND NOT stalls AND NOT reported THEN 'advised' ELSE 'not advised' END
			  || ': auto: transparent_hugepage enabled = ' || enabled || ', defrag = ' || defrag
			  || CASE WHEN NOT eligible THEN ''
					  WHEN stalls THEN ' (a fault in an advised range would compact memory)'
					  WHEN reported THEN ' (free pages are reported to the hypervisor)'
					  ELSE '' END
	   END AS auto_follows_kernel
  FROM expect, gpusort_memory() WHERE name = 'huge_pages';
SET gpusort.max_memory = '100MB';
SET gpusort.max_total_memory = '300MB';
SELECT name, bytes, detail FROM gpusort_memory() WHERE name IN ('max_memory', 'max_total_memory');
-- -1, or at least 1MB
SET gpusort.max_total_memory = '512kB';
SET gpusort.max_total_memory = 0;

CREATE TABLE mt (id int, k int8, s text COLLATE "C");
INSERT INTO mt SELECT i, hashint4(i) % 1000, md5(i::text) COLLATE "C" FROM generate_series(1, 60000) i;
ANALYZE mt;

-- a sort reserves, EXPLAIN ANALYZE shows it, and it is given back
SELECT mem('reserved_session') AS before;
SELECT regexp_replace(line, '  Memory: .*  Reserved', '  Memory: ...  Reserved') AS line
  FROM explain_masked('EXPLAIN (ANALYZE, BUFFERS OFF, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM mt ORDER BY k, id') AS line;
SELECT mem('reserved_session') AS after;
SELECT gs_check('SELECT * FROM mt ORDER BY k, id');
-- held while the sort's rows are returned (a cursor), counted server-wide
BEGIN;
DECLARE c CURSOR FOR SELECT * FROM mt ORDER BY k, id;
FETCH 2 FROM c;
SELECT mem('reserved_session') >= 1024 * 1024 AS held,
	   mem('reserved') >= mem('reserved_session') AS counted;
COMMIT;
SELECT mem('reserved_session') AS after_commit;
-- an ERROR while the rows are stored gives the reservation back
SELECT id, 1 / (id - 50000) FROM mt ORDER BY k, id LIMIT 1;
SELECT mem('reserved_session') AS after_error;
-- and so does a cancel
SET statement_timeout = '5ms';
SELECT count(*) FROM (SELECT * FROM mt, generate_series(1, 20) g ORDER BY s, g) x;
RESET statement_timeout;
SELECT mem('reserved_session') AS after_cancel;
-- a sort run again for each outer row (a rescan) reserves anew each time
SELECT g, x.id FROM generate_series(1, 3) g,
	   LATERAL (SELECT id FROM mt WHERE k >= g * 100 ORDER BY k, id OFFSET 10 LIMIT 1) x;
SELECT gs_check('SELECT g, x.id FROM generate_series(1, 3) g, LATERAL (SELECT id FROM mt WHERE k >= g * 100 ORDER BY k, id OFFSET 10 LIMIT 1) x', true);
SELECT mem('reserved_session') AS after_rescans;

-- no room in the account past 1MB: runs of what it gives, in temp files
SET gpusort.max_total_memory = '1MB';
SELECT * FROM explain_masked('EXPLAIN (ANALYZE, BUFFERS OFF, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM mt ORDER BY k, id');
SELECT gs_check('SELECT * FROM mt ORDER BY k, id');
SELECT gs_check('SELECT * FROM mt ORDER BY s DESC, id');
SELECT gs_check('SELECT * FROM mt ORDER BY k, id LIMIT 100', true);
SELECT gs_check('SELECT k, count(*) FROM mt GROUP BY k ORDER BY k');
SET work_mem = '64kB';
SELECT gs_check('SELECT * FROM mt ORDER BY s, id');
RESET work_mem;
SELECT mem('reserved_session') AS after_fallbacks;

-- a parallel sort: without room the rows pass through the Gather, and
-- the sort above writes them in runs of what the account gives; with room
-- they go through shared memory
SET gpusort.parallel = on;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT line FROM explain_masked('EXPLAIN (ANALYZE, BUFFERS OFF, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM mt ORDER BY k, id') AS line
 WHERE line ~ 'GpuSort: tuplesort|Rows Stored: none|Spill:';
SELECT gs_check('SELECT * FROM mt ORDER BY k, id');
SET gpusort.max_total_memory = '300MB';
SELECT line FROM explain_masked('EXPLAIN (ANALYZE, BUFFERS OFF, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM mt ORDER BY k, id') AS line
 WHERE line ~ 'Parallel Intake|GpuSort: tuplesort|Rows Stored: none';
SELECT gs_check('SELECT * FROM mt ORDER BY k, id');
SELECT mem('reserved_session') AS after_parallel, mem('shm_reserved') AS shm_after_parallel;

RESET ALL;
DROP TABLE mt;

-- a session keeps the large row blocks of its sorts mapped for its next
-- sorts (blockpool.c), within gpusort.keep_memory and gpusort.max_memory:
-- the next sort writes its rows into blocks faulted in already; an ERROR
-- or a cancel gives the blocks to the pool as the end of a sort does
SET gpusort.min_rows = 0;
SET gpusort.device = cpu;
SET max_parallel_workers_per_gather = 0;
SET gpusort.max_memory = '200MB';
CREATE TABLE mk (id int, s text COLLATE "C");
INSERT INTO mk SELECT i, md5(i::text) || repeat('x', 200) FROM generate_series(1, 100000) i;
ANALYZE mk;
-- kept_by(q): what q's GpuSort (the top node) took from the pool
CREATE FUNCTION kept_by(q text) RETURNS bigint LANGUAGE plpgsql AS $f$
DECLARE
	plan json;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, BUFFERS OFF, TIMING OFF, SUMMARY OFF, COSTS OFF, FORMAT JSON) ' || q INTO plan;
	RETURN coalesce((plan -> 0 -> 'Plan' ->> 'Memory Kept From Earlier Sorts')::int8, 0);
END
$f$;
SET gpusort.keep_memory = 0;
SELECT gs_check('SELECT * FROM mk ORDER BY s DESC');
SELECT kept_by('SELECT * FROM mk ORDER BY s DESC') AS kept_by_off, mem('kept_session') AS kept_off;
SET gpusort.keep_memory = '16MB';
SELECT gs_check('SELECT * FROM mk ORDER BY s DESC');
SELECT mem('kept_session') > 0 AS kept, mem('kept_session') <= 16 * 1024 * 1024 AS within;
SELECT kept_by('SELECT * FROM mk ORDER BY s') > 0 AS reused,
	   mem('kept_session') <= 16 * 1024 * 1024 AS within;
-- an ERROR while rows are stored, and a cancel, leave the pool within
-- bounds and the next sort correct
SELECT id, 1 / (id - 90000) FROM mk ORDER BY s, 2;
SELECT mem('kept_session') > 0 AS kept, mem('kept_session') <= 16 * 1024 * 1024 AS within;
SET statement_timeout = '50ms';
SELECT count(*) FROM (SELECT * FROM mk, generate_series(1, 5) g ORDER BY s, g) x;
RESET statement_timeout;
SELECT mem('kept_session') <= 16 * 1024 * 1024 AS within;
SELECT kept_by('SELECT * FROM mk ORDER BY s') > 0 AS reused;
SELECT gs_check('SELECT * FROM mk ORDER BY s, id');
-- a smaller setting trims the pool at once; 0 empties it
SET gpusort.keep_memory = '4MB';
SELECT mem('kept_session') <= 4 * 1024 * 1024 AS trimmed;
SET gpusort.keep_memory = 0;
SELECT mem('kept_session') AS emptied;
SELECT gs_check('SELECT * FROM mk ORDER BY s DESC, id');
SELECT mem('kept_session') AS still_empty;

RESET ALL;
DROP TABLE mk;
DROP FUNCTION kept_by(text);
DROP FUNCTION mem(text);
