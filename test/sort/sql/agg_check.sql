-- agg_check(q) and agg_error(q), for the aggregate tests (sql/sort_agg.sql);
-- they need test/sort/sql/gs_check.sql and window_check.sql (gs_error_check).
--
-- agg_check(q): q against stock, compared as text (so -0 and 0, 1.0 and
-- 1.00 must come back as stock writes them), and whether its plan has the
-- GpuAgg node
CREATE OR REPLACE FUNCTION agg_check(q text, OUT result text, OUT gpuagg boolean) LANGUAGE plpgsql AS $f$
BEGIN
	result := gs_check(format('SELECT gs_r::text AS gs_r FROM (%s) gs_r', q));
	gpuagg := gs_plan_has(q, 'GpuAgg');
END
$f$;

-- agg_check_eq(q): the same, compared with each column's equality, for
-- aggregates that return one of several equal values (percentile_disc and
-- mode over 1.0 and 1.00, or -0 and 0: the sort's order of equal values
-- picks which, in stock as here)
CREATE OR REPLACE FUNCTION agg_check_eq(q text, OUT result text, OUT gpuagg boolean) LANGUAGE plpgsql AS $f$
BEGIN
	result := gs_check(q);
	gpuagg := gs_plan_has(q, 'GpuAgg');
END
$f$;

-- agg_error(q): whether q raises the same error (SQLSTATE and message)
-- with GpuSort on and off, and whether its plan has the GpuAgg node
CREATE OR REPLACE FUNCTION agg_error(q text, OUT result text, OUT gpuagg boolean) LANGUAGE plpgsql AS $f$
BEGIN
	result := gs_error_check(q);
	gpuagg := gs_plan_has(q, 'GpuAgg');
END
$f$;

-- agg_explain_has(q, line): whether EXPLAIN ANALYZE of q has a line that
-- contains line (the plan's other lines differ between versions)
CREATE OR REPLACE FUNCTION agg_explain_has(q text, line text) RETURNS boolean LANGUAGE plpgsql AS $f$
DECLARE
	ln text;
BEGIN
	FOR ln IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		IF strpos(ln, line) > 0 THEN
			RETURN true;
		END IF;
	END LOOP;
	RETURN false;
END
$f$;
