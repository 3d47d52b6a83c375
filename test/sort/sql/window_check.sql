-- win_check(q) and win_error(q), for the window tests (sql/sort_window.sql);
-- they need test/sort/sql/gs_check.sql.
--
-- win_check(q): q against stock, compared as text, and whether its plan
-- has the GpuWindow node
CREATE OR REPLACE FUNCTION win_check(q text, OUT result text, OUT gpuwindow boolean) LANGUAGE plpgsql AS $f$
BEGIN
	result := gs_check(format('SELECT gs_w::text AS gs_w FROM (%s) gs_w', q));
	gpuwindow := gs_plan_has(q, 'GpuWindow');
END
$f$;

-- win_error(q): runs q with GpuSort on and with gpusort off and says
-- whether both raised the same error (SQLSTATE and message)
CREATE OR REPLACE FUNCTION win_error_of(q text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
	n bigint;
BEGIN
	EXECUTE format('SELECT count(gs_w::text) FROM (%s) gs_w', q) INTO n;
	RETURN format('no error (%s rows)', n);
EXCEPTION WHEN OTHERS THEN
	RETURN format('%s: %s', SQLSTATE, SQLERRM);
END
$f$;
-- gs_error_check(q): whether q raises the same error (SQLSTATE and
-- message) with GpuSort on and off; win_error and agg_error add the node
CREATE OR REPLACE FUNCTION gs_error_check(q text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
	e_on text;
	e_off text;
	used boolean := gs_plan_uses_gpusort(q);
BEGIN
	e_on := win_error_of(q);
	PERFORM set_config('gpusort.enabled', 'off', true);
	e_off := win_error_of(q);
	PERFORM set_config('gpusort.enabled', 'on', true);
	RETURN CASE WHEN NOT used THEN 'NO GPUSORT IN PLAN'
				WHEN e_on = e_off THEN 'same: ' || e_on
				ELSE format('DIFFERENT: gpusort %s, stock %s', e_on, e_off) END;
END
$f$;
CREATE OR REPLACE FUNCTION win_error(q text, OUT result text, OUT gpuwindow boolean) LANGUAGE plpgsql AS $f$
BEGIN
	result := gs_error_check(q);
	gpuwindow := gs_plan_has(q, 'GpuWindow');
END
$f$;
