-- gs_check(q), explain_masked(q) and their helpers, shared by the sort tests.
--
-- gs_check(q): runs q with GpuSort forced on and with gpusort off, and
-- compares the whole results, row by row in order, with each column's
-- equality (so -0 = 0, NaN = NaN, and a nondeterministic collation's equal
-- strings are equal, as the sort itself considers them).  Says "ok" or what
-- differs, and whether the plan used GpuSort at all.
-- gs_check(q, top => true): q as the top of its plan, where the planner
-- hook may change the targetlists of the nodes on top (without it q runs
-- in a subquery): both runs are read through cursors and compared row by
-- row, as text.  Cursors never run parallel plans.
-- gs_plan_has(q, node): whether EXPLAIN (COSTS OFF) of q, under the
-- settings in force, shows a Custom Scan (node)
-- gs_plan_uses_gpusort(q): turns GpuSort on for every sort (for the rest
-- of the transaction) and says whether q's plan has a GpuSort (or a GpuAgg,
-- which over bare values has no GpuSort below it)
-- gs_cursor_check(q): walks a SCROLL cursor over q in every direction
-- (gs_cursor_walk), with GpuSort on and off, and compares what it saw
CREATE OR REPLACE FUNCTION gs_plan_has(q text, node text) RETURNS boolean LANGUAGE plpgsql AS $f$
DECLARE
	ln text;
BEGIN
	FOR ln IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		IF strpos(ln, format('Custom Scan (%s)', node)) > 0 THEN
			RETURN true;
		END IF;
	END LOOP;
	RETURN false;
END
$f$;

CREATE OR REPLACE FUNCTION gs_plan_uses_gpusort(q text) RETURNS boolean LANGUAGE plpgsql AS $f$
BEGIN
	PERFORM set_config('gpusort.enabled', 'on', true);
	PERFORM set_config('gpusort.min_rows', '0', true);
	RETURN gs_plan_has(q, 'GpuSort') OR gs_plan_has(q, 'GpuAgg');
END
$f$;

CREATE OR REPLACE FUNCTION gs_check(q text, top boolean DEFAULT false) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
	used boolean := gs_plan_uses_gpusort(q);
	n_on bigint;
	n_off bigint;
	ndiff bigint := 0;
	c_on refcursor;
	c_off refcursor;
	r_on record;
	r_off record;
	f_on boolean;
	f_off boolean;
BEGIN
	IF top THEN
		-- q as the top of its plan: both runs through cursors, row by row
		OPEN c_on FOR EXECUTE q;
		PERFORM set_config('gpusort.enabled', 'off', true);
		OPEN c_off FOR EXECUTE q;
		PERFORM set_config('gpusort.enabled', 'on', true);
		n_on := 0;
		n_off := 0;
		LOOP
			FETCH c_on INTO r_on;
			f_on := FOUND;
			FETCH c_off INTO r_off;
			f_off := FOUND;
			EXIT WHEN NOT f_on AND NOT f_off;
			n_on := n_on + f_on::int;
			n_off := n_off + f_off::int;
			IF f_on <> f_off OR r_on::text IS DISTINCT FROM r_off::text THEN
				ndiff := ndiff + 1;
			END IF;
		END LOOP;
		CLOSE c_on;
		CLOSE c_off;
	ELSE
		EXECUTE format('CREATE TEMP TABLE gs_on AS SELECT row_number() OVER () AS gs_n, * FROM (%s) gs_q', q);
		PERFORM set_config('gpusort.enabled', 'off', true);
		EXECUTE format('CREATE TEMP TABLE gs_off AS SELECT row_number() OVER () AS gs_n, * FROM (%s) gs_q', q);
		PERFORM set_config('gpusort.enabled', 'on', true);
		SELECT count(*) INTO n_on FROM gs_on;
		SELECT count(*) INTO n_off FROM gs_off;
		SELECT count(*) INTO ndiff
		  FROM gs_on gs_a FULL JOIN gs_off gs_b USING (gs_n)
		 WHERE gs_a IS DISTINCT FROM gs_b;
		DROP TABLE gs_on, gs_off;
	END IF;
	RETURN CASE WHEN NOT used THEN 'NO GPUSORT IN PLAN'
				WHEN n_on <> n_off THEN format('ROW COUNTS DIFFER: %s vs %s', n_on, n_off)
				WHEN ndiff > 0 THEN format('%s ROWS DIFFER', ndiff)
				ELSE 'ok' END || format(' (%s rows)', n_on);
END
$f$;

CREATE OR REPLACE FUNCTION gs_cursor_walk(q text) RETURNS text[] LANGUAGE plpgsql AS $f$
DECLARE
	c refcursor;
	r record;
	seen text[] := '{}';
	i int;
BEGIN
	OPEN c SCROLL FOR EXECUTE q;
	FOR i IN 1 .. 5 LOOP
		FETCH NEXT FROM c INTO r; seen := seen || r::text;
	END LOOP;
	FETCH PRIOR FROM c INTO r; seen := seen || r::text;
	FETCH LAST FROM c INTO r; seen := seen || r::text;
	FETCH NEXT FROM c INTO r; seen := seen || coalesce(r::text, 'end');
	FETCH NEXT FROM c INTO r; seen := seen || coalesce(r::text, 'end');
	FETCH PRIOR FROM c INTO r; seen := seen || coalesce(r::text, 'none');
	FETCH ABSOLUTE 42 FROM c INTO r; seen := seen || coalesce(r::text, 'none');
	FETCH RELATIVE -7 FROM c INTO r; seen := seen || coalesce(r::text, 'none');
	FETCH FIRST FROM c INTO r; seen := seen || r::text;
	FETCH PRIOR FROM c INTO r; seen := seen || coalesce(r::text, 'start');
	FETCH NEXT FROM c INTO r; seen := seen || coalesce(r::text, 'none');
	MOVE LAST FROM c;
	LOOP	-- everything, backwards
		FETCH PRIOR FROM c INTO r;
		EXIT WHEN NOT FOUND;
		seen := seen || r::text;
	END LOOP;
	CLOSE c;
	RETURN seen;
END
$f$;

CREATE OR REPLACE FUNCTION gs_cursor_check(q text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
	a text[];
	b text[];
	used boolean := gs_plan_uses_gpusort(q);
BEGIN
	a := gs_cursor_walk(q);
	PERFORM set_config('gpusort.enabled', 'off', true);
	b := gs_cursor_walk(q);
	PERFORM set_config('gpusort.enabled', 'on', true);
	RETURN CASE WHEN NOT used THEN 'NO GPUSORT IN PLAN'
				WHEN a IS DISTINCT FROM b THEN 'DIFFERENT'
				ELSE 'ok' END || format(' (%s fetches)', cardinality(a));
END
$f$;

-- explain_masked(q): the lines of EXPLAIN statement q, with what varies
-- from run to run masked: times, memory and disk sizes, the batched
-- merge's threads and ranges (machine's); and what differs
-- between PostgreSQL versions written one way: row counts without 18's two
-- decimals, 18's "Disabled" properties and Window lines dropped, Gather's
-- "Params Evaluated" (up to 16) dropped, initPlan outputs written as
-- (InitPlan N).col1, as from 17, rather than $N (right for plans whose
-- initPlans each return one value, $N of InitPlan N).  (Write EXPLAIN ANALYZE with
-- BUFFERS OFF: 18 shows buffers by default.)
CREATE OR REPLACE FUNCTION explain_masked(q text) RETURNS SETOF text LANGUAGE plpgsql AS $f$
DECLARE
	ln text;
BEGIN
	FOR ln IN EXECUTE q LOOP
		-- (a JSON or YAML plan is one multi-line value)
		ln := regexp_replace(ln, '\n *"Disabled": (true|false),', '', 'g');
		ln := regexp_replace(ln, ',\n *"Disabled": (true|false)(\n)', '\2', 'g');
		ln := regexp_replace(ln, '\n *Disabled: (true|false)', '', 'g');
		CONTINUE WHEN ln ~ '^ *(Disabled: |Window: |Params Evaluated: )';
		ln := regexp_replace(ln, '(rows=|Actual Rows": |Actual Rows: )(\d+)\.\d\d', '\1\2', 'g');
		ln := regexp_replace(ln, 'InitPlan (\d+) \(returns \$\d+\)', 'InitPlan \1', 'g');
		ln := regexp_replace(ln, '\$(\d+)', '(InitPlan \1).col1', 'g');
		ln := regexp_replace(ln, '\d+\.\d+', 'N.N', 'g');
		ln := regexp_replace(ln, '(Memory|Disk): \d+kB', '\1: NkB', 'g');
		ln := regexp_replace(ln, '\(\d+kB faulted in ahead\)', '(NkB faulted in ahead)', 'g');
		-- (blocks kept from the session's earlier sorts: blockpool.c)
		ln := regexp_replace(ln, ' \(\d+kB kept from earlier sorts\)', '', 'g');
		ln := regexp_replace(ln, '\n *"Memory Kept From Earlier Sorts": \d+,', '', 'g');
		ln := regexp_replace(ln, '\n *Memory Kept From Earlier Sorts: \d+', '', 'g');
		CONTINUE WHEN ln ~ '^ *Memory Kept From Earlier Sorts: ';
		ln := regexp_replace(ln, 'Reserved: \d+kB', 'Reserved: NkB', 'g');
		ln := regexp_replace(ln, 'Spill: (\d+) runs, \d+kB written', 'Spill: \1 runs, NkB written', 'g');
		ln := regexp_replace(ln, '(Spill Written): \d+', '\1: N', 'g');
		-- (the batched merge's threads are the machine's, and with them its ranges)
		ln := regexp_replace(ln, 'threads \d+, batches \d+, key ranges \d+', 'threads N, batches N, key ranges N', 'g');
		ln := regexp_replace(ln, '(Merge Threads|Merge Batches|Merge Key Ranges)("?): \d+', '\1\2: N', 'g');
		ln := regexp_replace(ln, '(Memory Used|Memory Faulted In Ahead|Memory Reserved): \d+', '\1: N', 'g');
		RETURN NEXT ln;
	END LOOP;
END
$f$;
