-- gpusort_stat without gpusort in shared_preload_libraries (as the regress
-- cluster runs): the view and the reset say what they need, and sorts work
-- and are simply not counted.  test/sort/cpu/stat.sh tests the counts, on a
-- cluster that preloads gpusort.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS gpusort;
RESET client_min_messages;
LOAD 'gpusort';
SET gpusort.min_rows = 0;
SET gpusort.device = cpu;
SELECT * FROM gpusort_stat;
SELECT gpusort_stat_reset();
EXPLAIN (COSTS OFF) SELECT g FROM generate_series(1, 5) g ORDER BY g DESC;
SELECT g FROM generate_series(1, 5) g ORDER BY g DESC;
-- the view's columns, in the order of src/runtime/stat.h
SELECT attnum, attname, format_type(atttypid, atttypmod) FROM pg_attribute
 WHERE attrelid = 'gpusort_stat'::regclass AND attnum > 0 ORDER BY attnum;
