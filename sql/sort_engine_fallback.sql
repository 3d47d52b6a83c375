-- The engine choice and its fallbacks, identical on every machine: with or
-- without CUDA in the build, with or without a GPU (test/gpu/run runs this
-- suite with gpusort.device = gpu on a GPU).  DETAIL lines (the reason,
-- which differs between machines) are hidden with VERBOSITY terse.
\set VERBOSITY terse
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS gpusort;
RESET client_min_messages;
LOAD 'gpusort';
SET gpusort.min_rows = 0;

-- gpusort_gpu_info() describes this backend without starting CUDA
SELECT built_with_cuda IS NOT NULL AS known,
       context_held = (status = 'ready') AS consistent,
       (first_use_ms IS NOT NULL) = context_held AS timed_if_started
  FROM gpusort_gpu_info();

-- gpusort_gpu_devices(): one row per visible device, none without a GPU
-- (the NOTICE saying why differs between machines); gpusort.devices
-- decides which are allowed
SET client_min_messages = warning;
SELECT count(*) FILTER (WHERE allowed AND sessions >= 0 AND total_memory_mb > 0
                          AND device IS NOT NULL) = count(*) AS consistent,
       count(*) FILTER (WHERE this_session) = 0 AS none_held_yet
  FROM gpusort_gpu_devices();
SET gpusort.devices = '15';
SELECT count(*) FILTER (WHERE allowed) = count(*) FILTER (WHERE device_ordinal = 15) AS only_listed
  FROM gpusort_gpu_devices();
RESET gpusort.devices;
RESET client_min_messages;

-- plan_says(q, what): whether EXPLAIN ANALYZE of q has a line containing what
CREATE FUNCTION plan_says(q text, what text) RETURNS boolean LANGUAGE plpgsql AS $f$
DECLARE
	ln text;
BEGIN
	FOR ln IN EXECUTE 'EXPLAIN (ANALYZE, BUFFERS OFF, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		IF strpos(ln, what) > 0 THEN
			RETURN true;
		END IF;
	END LOOP;
	RETURN false;
END
$f$;

CREATE TABLE ef AS
  SELECT i AS id, (i * 7919) % 1000 AS k, md5(i::text) COLLATE "C" AS s
    FROM generate_series(1, 3000) i;
ANALYZE ef;

-- auto keeps small sorts on the CPU, silently, and says why
SET gpusort.device = auto;
SELECT plan_says('SELECT * FROM ef ORDER BY k, id', 'cpu radix') AS cpu_engine,
       plan_says('SELECT * FROM ef ORDER BY k, id', 'fewer than 100000 rows') AS reason_shown;
SELECT id, k FROM ef ORDER BY k DESC, id LIMIT 5;

-- cpu: never the GPU
SET gpusort.device = cpu;
SELECT plan_says('SELECT * FROM ef ORDER BY s', 'gpusort.device = cpu') AS reason_shown;

-- gpu with no GPU session allowed: the CPU sorts, with one WARNING per
-- sort, and the result is that of stock PostgreSQL
SET gpusort.max_gpu_sessions = 0;
SET gpusort.device = gpu;
CREATE TEMP TABLE on_gpu AS SELECT row_number() OVER () AS n, * FROM (SELECT * FROM ef ORDER BY s DESC) q;
-- one WARNING, also for an empty input
SELECT * FROM ef WHERE id < 0 ORDER BY k;
RESET gpusort.device;
RESET gpusort.max_gpu_sessions;
-- nor with no visible device listed in gpusort.devices
SET gpusort.devices = '15';
SET gpusort.device = gpu;
SELECT count(*) FROM (SELECT * FROM ef ORDER BY s DESC OFFSET 0) q;
RESET gpusort.device;
RESET gpusort.devices;
SET gpusort.enabled = off;
CREATE TEMP TABLE stock AS SELECT row_number() OVER () AS n, * FROM (SELECT * FROM ef ORDER BY s DESC) q;
RESET gpusort.enabled;
SELECT count(*) AS rows, count(*) FILTER (WHERE a IS DISTINCT FROM b) AS differ
  FROM on_gpu a FULL JOIN stock b USING (n);

-- every key width, through the CPU engine, against stock PostgreSQL
SET gpusort.device = cpu;
CREATE TEMP TABLE w_on AS
  SELECT row_number() OVER () AS n, * FROM (
    SELECT k, s, id FROM ef ORDER BY k DESC, s, id) q;            -- a wide key
CREATE TEMP TABLE w8_on AS
  SELECT row_number() OVER () AS n, * FROM (
    SELECT k, id FROM ef ORDER BY k, id DESC) q;                   -- a narrow one
SET gpusort.enabled = off;
CREATE TEMP TABLE w_off AS
  SELECT row_number() OVER () AS n, * FROM (
    SELECT k, s, id FROM ef ORDER BY k DESC, s, id) q;
CREATE TEMP TABLE w8_off AS
  SELECT row_number() OVER () AS n, * FROM (
    SELECT k, id FROM ef ORDER BY k, id DESC) q;
RESET gpusort.enabled;
SELECT (SELECT count(*) FROM w_on a FULL JOIN w_off b USING (n) WHERE a IS DISTINCT FROM b) AS wide_differ,
       (SELECT count(*) FROM w8_on a FULL JOIN w8_off b USING (n) WHERE a IS DISTINCT FROM b) AS narrow_differ;

DROP TABLE ef;
DROP FUNCTION plan_says(text, text);
