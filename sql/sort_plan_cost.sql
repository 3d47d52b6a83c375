-- The planner hook's cost on every query: it walks the finished plan a
-- fixed number of times, so planning with gpusort on stays within a small
-- factor of stock's however deep the plan.  A walk that revisited each
-- subtree at every level (Max() around a recursive call evaluates it twice)
-- doubled the time with each join: 24 tables planned in about a second
-- against under a millisecond.  Timed here as the best of several plans of
-- a left-deep chain of nested loops, 8 and 24 tables deep.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS gpusort;
RESET client_min_messages;
LOAD 'gpusort';
CREATE TABLE pc (a int);

CREATE FUNCTION plan_ms(ntables int, gpusort_on bool) RETURNS float8
LANGUAGE plpgsql AS $$
DECLARE
	q text := 'EXPLAIN SELECT count(*) FROM pc t1';
	best float8 := 'Infinity';
	t0 timestamptz;
	ln text;
BEGIN
	FOR i IN 2 .. ntables LOOP
		q := q || format(' JOIN pc t%s ON t%s.a = t%s.a', i, i, i - 1);
	END LOOP;
	PERFORM set_config('gpusort.enabled', gpusort_on::text, true);
	FOR rep IN 1 .. 7 LOOP
		t0 := clock_timestamp();
		FOR ln IN EXECUTE q LOOP END LOOP;
		best := least(best, extract(epoch FROM clock_timestamp() - t0) * 1000);
	END LOOP;
	RETURN best;
END $$;

SET join_collapse_limit = 1;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
-- the same plan either way: the chain has no sort
EXPLAIN (COSTS OFF) SELECT count(*) FROM pc t1 JOIN pc t2 ON t2.a = t1.a JOIN pc t3 ON t3.a = t2.a;
SET gpusort.enabled = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM pc t1 JOIN pc t2 ON t2.a = t1.a JOIN pc t3 ON t3.a = t2.a;
RESET gpusort.enabled;

-- on within 2x of off plus 5 ms, at 8 and at 24 tables (a doubling walk
-- takes some 250 ms more at 24 than at 8 tables' 1 ms, on any machine)
SELECT n,
	   plan_ms(n, true) <= 2 * plan_ms(n, false) + 5 AS within_bound
FROM (VALUES (8), (24)) v(n);

RESET join_collapse_limit;
RESET enable_hashjoin;
RESET enable_mergejoin;
DROP FUNCTION plan_ms(int, bool);
DROP TABLE pc;
