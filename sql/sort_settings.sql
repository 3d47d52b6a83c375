-- The settings of the GpuSort node, and how a session gets it: LOAD,
-- gpusort_load() (what CREATE EXTENSION calls), session_preload_libraries.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS gpusort;
RESET client_min_messages;
SELECT gpusort_load();
SELECT name, boot_val, unit FROM pg_settings
 WHERE name IN ('gpusort.enabled', 'gpusort.device', 'gpusort.min_rows', 'gpusort.max_memory')
 ORDER BY name;

CREATE TABLE st (id int, k int);
INSERT INTO st SELECT i, i % 10 FROM generate_series(1, 20000) i;
CREATE TABLE st_small (id int, k int);
INSERT INTO st_small SELECT i, i % 10 FROM generate_series(1, 100) i;
ANALYZE st, st_small;

-- gpusort.min_rows: sorts estimated below it keep the stock Sort
EXPLAIN (COSTS OFF) SELECT * FROM st ORDER BY k;
EXPLAIN (COSTS OFF) SELECT * FROM st_small ORDER BY k;
SET gpusort.min_rows = 50;
EXPLAIN (COSTS OFF) SELECT * FROM st_small ORDER BY k;
SET gpusort.min_rows = 0;
EXPLAIN (COSTS OFF) SELECT * FROM st_small WHERE id = 1 ORDER BY k;
SET gpusort.min_rows = -1;

-- gpusort.enabled = off leaves every Sort alone
SET gpusort.enabled = off;
EXPLAIN (COSTS OFF) SELECT * FROM st ORDER BY k;
RESET gpusort.enabled;

-- gpusort.device: auto and cpu give the same rows (gpu is exercised by the
-- GPU machine's harness); a wrong value is refused
SET gpusort.device = tpu;
SET gpusort.device = cpu;
SELECT array_agg(id ORDER BY k, id) = (SELECT array_agg(id) FROM (SELECT id FROM st ORDER BY k, id) s) AS same
  FROM st;
SET gpusort.device = auto;
SELECT (SELECT array_agg(id) FROM (SELECT id FROM st ORDER BY k DESC, id) s)
	 = (SELECT array_agg(id ORDER BY k DESC, id) FROM st) AS same;

-- gpusort.max_memory: at least 1MB
SET gpusort.max_memory = '512kB';
SET gpusort.max_memory = '1MB';
SHOW gpusort.max_memory;
RESET gpusort.max_memory;

-- gpusort.cpu_threads: 0 (the machine's cores) to 64 (sort_large sorts
-- 10^6 rows with the default; test/sort/cpu/engine_cpu.sh checks 1, 3 and 4 threads)
SET gpusort.cpu_threads = 0;
SET gpusort.cpu_threads = 65;
SET gpusort.cpu_threads = 1;
SHOW gpusort.cpu_threads;
RESET gpusort.cpu_threads;

-- gpusort.devices: '' (every device) or distinct CUDA ordinals from 0 to
-- 15, set by superusers (test/sort/cpu/gpu_select.sh checks the syntax in
-- full); a bad list is refused with invalid_parameter_value
SHOW gpusort.devices;
SET gpusort.devices = 'x';
SET gpusort.devices = '-1';
SET gpusort.devices = '1,1';
SET gpusort.devices = '0,16';
SET gpusort.devices = '1,';
SET gpusort.devices = ' 2, 0 ';
SHOW gpusort.devices;
DO $$
BEGIN
	PERFORM set_config('gpusort.devices', 'gpu0', false);
EXCEPTION WHEN invalid_parameter_value THEN
	RAISE NOTICE 'invalid_parameter_value: %', SQLERRM;
END
$$;
SHOW gpusort.devices;
SELECT name, context FROM pg_settings
 WHERE name IN ('gpusort.devices', 'gpusort.max_gpu_sessions') ORDER BY name;
CREATE ROLE regress_gpusort_devices;
SET ROLE regress_gpusort_devices;
SET gpusort.devices = '0';
RESET ROLE;
DROP ROLE regress_gpusort_devices;
RESET gpusort.devices;

-- a new session has no hook until something loads the library
\c
SET gpusort.min_rows = 0;
SELECT gpusort_load();
EXPLAIN (COSTS OFF) SELECT * FROM st ORDER BY k;
\c
SET gpusort.min_rows = 0;
LOAD 'gpusort';
EXPLAIN (COSTS OFF) SELECT * FROM st ORDER BY k DESC;

-- session_preload_libraries: every new session of this database has it
SELECT current_database() AS db \gset
ALTER DATABASE :"db" SET session_preload_libraries = 'gpusort';
ALTER DATABASE :"db" SET gpusort.min_rows = 0;
\c
EXPLAIN (COSTS OFF) SELECT * FROM st ORDER BY id DESC;
ALTER DATABASE :"db" RESET session_preload_libraries;
ALTER DATABASE :"db" RESET gpusort.min_rows;
