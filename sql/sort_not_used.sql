-- EXPLAIN says why an Agg whose aggregates sort did not become a GpuAgg,
-- and why a WindowAgg did not become a GpuWindow: "GpuAgg Not Used" and
-- "GpuWindow Not Used" on the stock node, in every format (issue 41).  A
-- node that gpusort replaced, or an Agg with no aggregate that sorts, says
-- nothing.  The reasons are counted in gpusort_stat when planned: the
-- regress cluster does not preload gpusort, so test/sort/cpu/stat.sh
-- tests the counts.  The settings that decide the plans are set here, so
-- gpusort.device = gpu (the device harness) gives the same output.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS gpusort;
RESET client_min_messages;
LOAD 'gpusort';
-- explain_masked(q), shared by the sort tests: test/sort/sql/gs_check.sql
-- (it writes what differs between PostgreSQL versions one way)
\getenv abs_srcdir PG_ABS_SRCDIR
\set gs_check_sql :abs_srcdir '/test/sort/sql/gs_check.sql'
\set ECHO none
\i :gs_check_sql
\set ECHO all
SET gpusort.device = cpu;
SET gpusort.parallel = off;
SET max_parallel_workers_per_gather = 0;
SET gpusort.min_rows = 0;
-- PostgreSQL 16 and later sort an Agg's input by an aggregate's column
-- themselves (presorted aggregates): off, so every version plans as 15
DO $$
BEGIN
	IF current_setting('server_version_num')::int >= 160000 THEN
		PERFORM set_config('enable_presorted_aggregate', 'off', false);
	END IF;
END
$$;
CREATE TABLE nu (g int, x int, f float8, t text);
INSERT INTO nu SELECT i % 10, i, i / 7.0, md5(i::text) FROM generate_series(1, 2000) i;
ANALYZE nu;
CREATE AGGREGATE nu_sum(int) (sfunc = int4pl, stype = int, initcond = '0');
-- a query's EXPLAIN in a structured format, parsed (an invalid document
-- would raise an error here)
CREATE FUNCTION nu_json(q text) RETURNS json LANGUAGE plpgsql AS
$$ DECLARE j json; BEGIN EXECUTE 'EXPLAIN (COSTS OFF, FORMAT JSON) ' || q INTO j; RETURN j; END $$;
CREATE FUNCTION nu_json_analyze(q text) RETURNS json LANGUAGE plpgsql AS
$$ DECLARE j json; BEGIN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, FORMAT JSON) ' || q INTO j; RETURN j; END $$;
CREATE FUNCTION nu_xml(q text) RETURNS xml LANGUAGE plpgsql AS
$$ DECLARE x xml; BEGIN EXECUTE 'EXPLAIN (COSTS OFF, FORMAT XML) ' || q INTO x; RETURN x; END $$;

-- ---- GpuAgg --------------------------------------------------------------------
-- used: no line
SELECT * FROM explain_masked($$EXPLAIN (COSTS OFF) SELECT g, percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM nu GROUP BY g$$);
-- no aggregate that sorts: none of GpuAgg's business, no line
SELECT * FROM explain_masked($$EXPLAIN (COSTS OFF) SELECT g, sum(x) FROM nu GROUP BY g$$);
-- aggregates GpuAgg does not compute, named
SELECT * FROM explain_masked($$EXPLAIN (COSTS OFF) SELECT g, nu_sum(DISTINCT x) FROM nu GROUP BY g$$);
SELECT * FROM explain_masked($$EXPLAIN (COSTS OFF) SELECT g, string_agg(t, ',' ORDER BY x) FILTER (WHERE x > 5) FROM nu GROUP BY g$$);
SELECT * FROM explain_masked($$EXPLAIN (COSTS OFF) SELECT g, percentile_cont(0.5) WITHIN GROUP (ORDER BY x + 1) FROM nu GROUP BY g$$);
-- two columns to sort
SELECT * FROM explain_masked($$EXPLAIN (COSTS OFF) SELECT g, count(DISTINCT x), count(DISTINCT t) FROM nu GROUP BY g$$);
-- grouping sets
SELECT * FROM explain_masked($$EXPLAIN (COSTS OFF) SELECT g, count(DISTINCT x) FROM nu GROUP BY ROLLUP (g)$$);
-- the Sort below stayed stock, and why
SET gpusort.min_rows = 100000;
SELECT * FROM explain_masked($$EXPLAIN (COSTS OFF) SELECT g, count(DISTINCT x) FROM nu GROUP BY g$$);
-- EXPLAIN ANALYZE: the same line, after the node's own
SELECT * FROM explain_masked($$EXPLAIN (ANALYZE, BUFFERS OFF, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT g, count(DISTINCT x) FROM nu WHERE x < 50 GROUP BY g HAVING count(*) > 4$$);
SET gpusort.min_rows = 0;
-- a plain Aggregate in one process on the CPU sorts its values itself
SELECT * FROM explain_masked($$EXPLAIN (COSTS OFF) SELECT count(DISTINCT t) FROM nu$$);
-- input already in order (an index)
CREATE INDEX nu_g ON nu (g);
SET enable_seqscan = off;
SET enable_sort = off;
SELECT * FROM explain_masked($$EXPLAIN (COSTS OFF) SELECT g, count(DISTINCT x) FROM nu GROUP BY g$$);
RESET enable_seqscan;
RESET enable_sort;
DROP INDEX nu_g;
-- the setting
SET gpusort.aggregates = off;
SELECT * FROM explain_masked($$EXPLAIN (COSTS OFF) SELECT g, count(DISTINCT x) FROM nu GROUP BY g$$);
-- structured formats: the same property, in valid documents
SELECT nu_json('SELECT g, count(DISTINCT x) FROM nu GROUP BY g')->0->'Plan'->>'GpuAgg Not Used' AS json_property;
SELECT * FROM explain_masked($$EXPLAIN (COSTS OFF, FORMAT JSON) SELECT g, count(DISTINCT x) FROM nu GROUP BY g$$);
SELECT * FROM explain_masked($$EXPLAIN (COSTS OFF, FORMAT YAML) SELECT g, count(DISTINCT x) FROM nu GROUP BY g$$);
SELECT xml_is_well_formed_document(nu_xml('SELECT g, count(DISTINCT x) FROM nu GROUP BY g')::text) AS xml_ok,
	   (xpath('//e:Plan/e:GpuAgg-Not-Used/text()', nu_xml('SELECT g, count(DISTINCT x) FROM nu GROUP BY g'),
			  ARRAY[ARRAY['e', 'http://www.postgresql.org/2009/explain']]))[1]::text AS xml_property;
RESET gpusort.aggregates;
-- in a SubPlan and a CTE (an initPlan): each on its own node
SELECT * FROM explain_masked($$EXPLAIN (COSTS OFF) SELECT g, (SELECT count(DISTINCT t) FROM nu i WHERE i.g = o.g) FROM generate_series(1, 3) o(g)$$);
SELECT * FROM explain_masked($$EXPLAIN (COSTS OFF) WITH c AS MATERIALIZED (SELECT g, count(DISTINCT x) AS a, count(DISTINCT t) AS b FROM nu GROUP BY g)
SELECT * FROM c WHERE a > 1$$);

-- ---- GpuWindow -----------------------------------------------------------------
-- used: no line
-- (count(*): PostgreSQL 16 and later give row_number a ROWS frame, which
-- GpuWindow's EXPLAIN shows)
SELECT * FROM explain_masked($$EXPLAIN (COSTS OFF) SELECT x, count(*) OVER (PARTITION BY g ORDER BY x) FROM nu$$);
-- a function GpuWindow does not compute, named
SELECT * FROM explain_masked($$EXPLAIN (COSTS OFF) SELECT x, string_agg(t, ',') OVER (PARTITION BY g ORDER BY x) FROM nu$$);
-- a wide sliding frame over a float sum (recomputed at each row)
SELECT * FROM explain_masked($$EXPLAIN (COSTS OFF) SELECT x, sum(f) OVER (PARTITION BY g ORDER BY x ROWS BETWEEN 2000 PRECEDING AND CURRENT ROW) FROM nu$$);
-- two windows over one sort: the upper one reads the lower one's rows
SELECT * FROM explain_masked($$EXPLAIN (COSTS OFF) SELECT x, count(*) OVER (PARTITION BY g ORDER BY x), string_agg(t, ',') OVER (PARTITION BY g) FROM nu$$);
-- the Sort below stayed stock, and why
SET gpusort.min_rows = 100000;
SELECT * FROM explain_masked($$EXPLAIN (COSTS OFF) SELECT x, row_number() OVER (PARTITION BY g ORDER BY x) FROM nu$$);
SET gpusort.min_rows = 0;
-- the setting
SET gpusort.window_functions = off;
SELECT * FROM explain_masked($$EXPLAIN (COSTS OFF) SELECT x, row_number() OVER (PARTITION BY g ORDER BY x) FROM nu$$);
SELECT nu_json('SELECT x, row_number() OVER (PARTITION BY g ORDER BY x) FROM nu')->0->'Plan'->>'GpuWindow Not Used' AS json_property;
RESET gpusort.window_functions;
-- EXPLAIN ANALYZE: the same property
SELECT j->0->'Plan'->>'Node Type' AS node, j->0->'Plan'->>'GpuWindow Not Used' AS why
  FROM nu_json_analyze('SELECT x, string_agg(t, '','') OVER (PARTITION BY g ORDER BY x) FROM nu') j;
-- a used GpuWindow's JSON has no such key
SELECT nu_json('SELECT x, row_number() OVER (PARTITION BY g ORDER BY x) FROM nu')::text LIKE '%Not Used%' AS says_not_used;

DROP FUNCTION nu_json(text);
DROP FUNCTION nu_json_analyze(text);
DROP FUNCTION nu_xml(text);
DROP AGGREGATE nu_sum(int);
DROP TABLE nu;
