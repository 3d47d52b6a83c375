-- GpuSort in every plan shape that sorts: ORDER BY, MergeJoin (with mark and
-- restore), GroupAggregate, window functions, DISTINCT, UNION, sorted
-- SetOps, MergeAppend, correlated and uncorrelated subplans, CTEs,
-- LIMIT/OFFSET (bounded sorts), parallel plans, empty and one-row inputs.
-- Each query is compared, whole result in order, with stock PostgreSQL.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS gpusort;
RESET client_min_messages;
LOAD 'gpusort';
SET gpusort.min_rows = 0;
-- the parallel node whatever the machine (auto uses it from 8 cores)
SET gpusort.parallel = on;
-- gs_check(q) and explain_masked(q), shared by the sort tests: test/sort/sql/gs_check.sql
\getenv abs_srcdir PG_ABS_SRCDIR
\set gs_check_sql :abs_srcdir '/test/sort/sql/gs_check.sql'
\set ECHO none
\i :gs_check_sql
\set ECHO all

CREATE TABLE m1 (id int, k int, v int, s text);
INSERT INTO m1 SELECT i, i % 200, hashint4(i) % 1000, md5(i::text) FROM generate_series(1, 2000) i;
CREATE TABLE m2 (id int, k int, w int);
INSERT INTO m2 SELECT i, i % 300, hashint4(-i) % 50 FROM generate_series(1, 1500) i;
ANALYZE m1, m2;

-- plain ORDER BY
EXPLAIN (COSTS OFF) SELECT k, v FROM m1 ORDER BY k DESC, v;
SELECT gs_check('SELECT k, v FROM m1 ORDER BY k DESC, v');

-- MergeJoin: duplicates on both sides, so the inner side is marked and
-- restored; inner, left and full joins
SET enable_hashjoin = off;
SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT m1.k, m1.v, m2.w FROM m1 JOIN m2 ON m1.k = m2.k ORDER BY 1, 2, 3;
SELECT gs_check('SELECT m1.k, m1.v, m2.w FROM m1 JOIN m2 ON m1.k = m2.k ORDER BY 1, 2, 3');
SELECT gs_check('SELECT m1.k AS k1, m2.k AS k2, m1.v, m2.w FROM m1 LEFT JOIN m2 ON m1.k = m2.k + 100 ORDER BY 1, 2, 3, 4');
EXPLAIN (COSTS OFF) SELECT m1.k AS k1, m2.k AS k2 FROM m1 FULL JOIN m2 ON m1.k = m2.k + 50;
SELECT gs_check('SELECT m1.k AS k1, m2.k AS k2, m1.v, m2.w FROM m1 FULL JOIN m2 ON m1.k = m2.k + 50 ORDER BY 1, 2, 3, 4');
-- without the ORDER BY on top, the join's own output order is compared
SELECT gs_check('SELECT m1.k, m2.k AS k2 FROM m1 JOIN m2 ON m1.k = m2.k');
RESET enable_hashjoin;
RESET enable_nestloop;

-- GroupAggregate, window functions, DISTINCT
SET enable_hashagg = off;
EXPLAIN (COSTS OFF) SELECT k, count(*), sum(v) FROM m1 GROUP BY k;
SELECT gs_check('SELECT k, count(*) AS n, sum(v) AS total FROM m1 GROUP BY k');
-- (sum keeps the default frame, which PostgreSQL 16 and later turn into a
-- ROWS frame for rank alone)
SELECT * FROM explain_masked('EXPLAIN (COSTS OFF) SELECT k, v, rank() OVER w, sum(v) OVER w FROM m1 WINDOW w AS (PARTITION BY k ORDER BY v DESC)');
SELECT gs_check('SELECT k, v, rank() OVER (PARTITION BY k ORDER BY v DESC) AS r, sum(v) OVER (ORDER BY k) AS running FROM m1 ORDER BY k, v');
EXPLAIN (COSTS OFF) SELECT DISTINCT k % 10 AS a, v % 7 AS b FROM m1;
SELECT gs_check('SELECT DISTINCT k % 10 AS a, v % 7 AS b FROM m1');
SELECT gs_check('SELECT DISTINCT ON (k) k, v FROM m1 ORDER BY k, v DESC');
-- (UNION, INTERSECT, EXCEPT: sort_setops, whose plans differ by version)
-- grouping sets: the sorts in the Agg's chain stay the Agg's own
EXPLAIN (COSTS OFF) SELECT k % 3 AS a, v % 4 AS b, count(*) FROM m1 GROUP BY GROUPING SETS ((k % 3), (v % 4));
SELECT gs_check('SELECT k % 3 AS a, v % 4 AS b, count(*) AS n FROM m1 GROUP BY GROUPING SETS ((k % 3), (v % 4)) ORDER BY 1, 2, 3');
RESET enable_hashagg;

-- MergeAppend over sorted partitions
CREATE TABLE hp (k int, v int) PARTITION BY HASH (k);
CREATE TABLE hp0 PARTITION OF hp FOR VALUES WITH (MODULUS 3, REMAINDER 0);
CREATE TABLE hp1 PARTITION OF hp FOR VALUES WITH (MODULUS 3, REMAINDER 1);
CREATE TABLE hp2 PARTITION OF hp FOR VALUES WITH (MODULUS 3, REMAINDER 2);
INSERT INTO hp SELECT hashint4(i) % 5000, i FROM generate_series(1, 3000) i;
ANALYZE hp;
SET enable_partitionwise_aggregate = on;
SET enable_hashagg = off;
EXPLAIN (COSTS OFF) SELECT k, count(*) FROM hp GROUP BY k ORDER BY k;
SELECT gs_check('SELECT k, count(*) AS n FROM hp GROUP BY k ORDER BY k');
RESET enable_hashagg;
RESET enable_partitionwise_aggregate;
EXPLAIN (COSTS OFF) SELECT * FROM hp ORDER BY k DESC LIMIT 5;
SELECT gs_check('SELECT k FROM hp ORDER BY k DESC LIMIT 5');

-- an IncrementalSort is left alone
CREATE INDEX m1_k ON m1 (k);
EXPLAIN (COSTS OFF) SELECT k, v FROM m1 ORDER BY k, v LIMIT 10;
DROP INDEX m1_k;

-- subplans: correlated (rescanned with new parameters, and a LIMIT that
-- changes with them), uncorrelated under a correlated qual (rewound), CTEs
EXPLAIN (COSTS OFF)
SELECT m2.k, (SELECT v FROM m1 WHERE m1.k = m2.k ORDER BY v DESC LIMIT 1) FROM m2;
SELECT gs_check('SELECT m2.id, (SELECT v FROM m1 WHERE m1.k = m2.k ORDER BY v DESC LIMIT 1) AS top FROM m2 ORDER BY m2.id');
SELECT gs_check('SELECT m2.id, ARRAY(SELECT v FROM m1 WHERE m1.k BETWEEN m2.k AND m2.k + 3 ORDER BY v LIMIT (m2.id % 4) + 1 OFFSET m2.id % 2) AS vs FROM m2 ORDER BY m2.id');
-- only the LIMIT changes with the outer row: the bound differs on rescan
SELECT gs_check('SELECT m2.id, ARRAY(SELECT v FROM m1 ORDER BY v DESC, k LIMIT (m2.id * 7) % 23 + 1) AS vs FROM m2 WHERE m2.id <= 200 ORDER BY m2.id');
EXPLAIN (COSTS OFF)
SELECT m2.id, (SELECT max(v) FROM (SELECT v FROM m1 ORDER BY v LIMIT 50) s WHERE s.v < m2.w) FROM m2;
SELECT gs_check('SELECT m2.id, (SELECT max(v) FROM (SELECT v FROM m1 ORDER BY v LIMIT 50) s WHERE s.v < m2.w) AS mx FROM m2 ORDER BY m2.id');
EXPLAIN (COSTS OFF)
WITH c AS MATERIALIZED (SELECT k, v FROM m1 ORDER BY v, k) SELECT * FROM c WHERE k < 5 ORDER BY k, v;
SELECT gs_check('WITH c AS MATERIALIZED (SELECT k, v FROM m1 ORDER BY v, k) SELECT * FROM c WHERE k < 5');
SELECT gs_check('WITH c AS MATERIALIZED (SELECT k, v FROM m1 ORDER BY v, k) SELECT * FROM c WHERE k < 5 ORDER BY k, v');
SELECT gs_check('SELECT k, v FROM m1 WHERE v IN (SELECT w FROM m2 ORDER BY w) ORDER BY k, v');

-- LIMIT and OFFSET: the sort is bounded; with a parameter, an initplan, WITH
-- TIES (not bounded), and through UNION ALL branches
EXPLAIN (COSTS OFF) SELECT k, v FROM m1 ORDER BY v, k LIMIT 10 OFFSET 5;
SELECT gs_check('SELECT k, v FROM m1 ORDER BY v, k LIMIT 10 OFFSET 5');
SELECT gs_check('SELECT k, v FROM m1 ORDER BY v DESC, k LIMIT 1');
SELECT gs_check('SELECT k, v FROM m1 ORDER BY v, k LIMIT 3000');
SELECT gs_check('SELECT k, v FROM m1 ORDER BY v, k OFFSET 1990');
SELECT gs_check('SELECT k, v FROM m1 ORDER BY v, k LIMIT ALL');
SELECT gs_check('SELECT k, v FROM m1 ORDER BY v, k LIMIT NULL OFFSET 3');
SELECT gs_check('SELECT k, v FROM m1 ORDER BY v, k LIMIT (SELECT 7) OFFSET (SELECT count(*) FROM m2 WHERE w > 40)');
SELECT gs_check('SELECT k FROM m1 ORDER BY k FETCH FIRST 3 ROWS WITH TIES');
SELECT gs_check('SELECT k, v FROM m1 ORDER BY v, k LIMIT 0');
SELECT gs_check('(SELECT k, v FROM m1 ORDER BY v, k LIMIT 5) UNION ALL (SELECT k, w FROM m2 ORDER BY w DESC, k LIMIT 5)');
PREPARE lim(int, int) AS SELECT k, v FROM m1 ORDER BY v, k LIMIT $1 OFFSET $2;
EXECUTE lim(3, 0);
EXECUTE lim(2, 1000);
DEALLOCATE lim;
-- the cutoff test reads a scanned row's sort columns in place (heap_getattr):
-- nulls and text before them, a dropped column, a column added with a
-- default (absent from the older rows' tuples); and input in reverse order,
-- where every row beats the cutoff, so the prunes come one after another
CREATE TABLE hc (a int, t text, d int, v float8);
INSERT INTO hc SELECT i, CASE WHEN i % 3 = 0 THEN NULL ELSE repeat('x', i % 50) END,
	i, (hashint4(i) & 1023)::float8 FROM generate_series(1, 20000) i;
ALTER TABLE hc DROP COLUMN d;
ALTER TABLE hc ADD COLUMN m int DEFAULT 7;
INSERT INTO hc SELECT i, NULL, (hashint4(i) & 1023)::float8, i % 9 FROM generate_series(20001, 25000) i;
ANALYZE hc;
EXPLAIN (COSTS OFF) SELECT * FROM hc ORDER BY v DESC, a LIMIT 25;
SELECT gs_check('SELECT * FROM hc ORDER BY v DESC, a LIMIT 25');
SELECT gs_check('SELECT * FROM hc ORDER BY m DESC, a LIMIT 25');
SELECT gs_check('SELECT * FROM hc ORDER BY m, v, a DESC LIMIT 30 OFFSET 10');
SELECT gs_check('SELECT * FROM hc ORDER BY t COLLATE "C" DESC NULLS LAST, a LIMIT 40');
SELECT gs_check('SELECT * FROM hc ORDER BY t COLLATE "C" NULLS FIRST, a DESC LIMIT 40');
SELECT gs_check('SELECT * FROM hc ORDER BY a DESC LIMIT 100');
SELECT gs_check('SELECT * FROM hc ORDER BY a DESC LIMIT 9000');
-- a top-N over a collation's text (a transform per row) stays stock's heap
-- when the bound is under 256 rows; text under "C", a larger bound or a
-- bound unknown at plan time gets the GpuSort (and so does every sort
-- under gpusort.min_rows = 0, as in the other tests)
SET max_parallel_workers_per_gather = 0;
SET gpusort.min_rows = 1000;
EXPLAIN (COSTS OFF) SELECT * FROM m1 ORDER BY s COLLATE "en_US.utf8" LIMIT 16 OFFSET 5;
EXPLAIN (COSTS OFF) SELECT * FROM m1 ORDER BY s COLLATE "en-x-icu" DESC, id LIMIT 21;
EXPLAIN (COSTS OFF) SELECT * FROM m1 ORDER BY s COLLATE "en-x-icu" LIMIT 200 OFFSET 100;
EXPLAIN (COSTS OFF) SELECT * FROM m1 ORDER BY s COLLATE "C" LIMIT 21;
PREPARE topn(int8) AS SELECT * FROM m1 ORDER BY s COLLATE "en_US.utf8" LIMIT $1;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE topn(21);
RESET plan_cache_mode;
DEALLOCATE topn;
SELECT gs_check('SELECT * FROM m1 ORDER BY s COLLATE "en-x-icu" LIMIT 200 OFFSET 100');
SET gpusort.min_rows = 0;
EXPLAIN (COSTS OFF) SELECT * FROM m1 ORDER BY s COLLATE "en-x-icu" DESC, id LIMIT 21;
RESET max_parallel_workers_per_gather;

-- parallel plans: Gather Merge over per-worker sorts becomes one GpuSort,
-- over a plain Seq Scan when the workers would only scan, else over a
-- Gather; sorts inside the workers (under a MergeJoin) run there.  Under a
-- LIMIT the Gather Merge and the workers' (bounded, top-N) Sorts stay,
-- unless the bound is 10000 rows or more: then the heaps cost more.
CREATE TABLE big AS SELECT i AS id, hashint4(i) % 100000 AS k, md5(i::text) AS s FROM generate_series(1, 20000) i;
ANALYZE big;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT k, s FROM big WHERE k > 0 ORDER BY k, s;
SELECT gs_check('SELECT k, s FROM big WHERE k > 0 ORDER BY k, s');
EXPLAIN (COSTS OFF) SELECT k, s FROM big ORDER BY s DESC LIMIT 7;
SELECT k, s FROM big ORDER BY s DESC LIMIT 7;
EXPLAIN (COSTS OFF) SELECT k, s FROM big ORDER BY s DESC LIMIT 10 OFFSET 10000;
SELECT gs_check('SELECT k, s FROM big ORDER BY s DESC, k LIMIT 10 OFFSET 10000');
SELECT gs_check('SELECT k % 100 AS g, count(*) AS n FROM big GROUP BY 1 ORDER BY 1');
SELECT k AS renamed, upper(s) AS label FROM big WHERE k > 99900 ORDER BY 1 DESC;
EXPLAIN (COSTS OFF) SELECT b1.k, b2.s FROM big b1 JOIN big b2 ON b1.id = b2.k ORDER BY b1.k DESC, b2.s;
SELECT gs_check('SELECT b1.k, b2.s FROM big b1 JOIN big b2 ON b1.id = b2.k ORDER BY b1.k DESC, b2.s');
EXPLAIN (COSTS OFF) SELECT b1.k, b2.s FROM big b1 JOIN big b2 ON b1.id = b2.k ORDER BY b2.s LIMIT 10;
SET enable_hashjoin = off;
SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM big b1 JOIN big b2 ON b1.k = b2.id;
SELECT gs_check('SELECT count(*) AS n, sum(b1.id) AS total FROM big b1 JOIN big b2 ON b1.k = b2.id');
-- under a LIMIT too, the sorts below the workers' bounded Sort are replaced
EXPLAIN (COSTS OFF) SELECT b1.id, b2.s FROM big b1 JOIN big b2 ON b1.k = b2.id ORDER BY b2.s, b1.id LIMIT 10;
SELECT gs_check('SELECT b1.id, b2.s FROM big b1 JOIN big b2 ON b1.k = b2.id ORDER BY b2.s, b1.id LIMIT 10');
RESET enable_hashjoin;
RESET enable_nestloop;
-- the workers sort on an expression the Gather Merge only reads (md5(s)):
-- the Gather returns the Sort's columns, so that the GpuSort finds every
-- sort column, and a Result on top projects the Gather Merge's targetlist
CREATE TABLE gm_t1 AS SELECT i % 100 AS id, 'x' || i AS s FROM generate_series(1, 10000) i;
ANALYZE gm_t1;
SET parallel_leader_participation = on;
EXPLAIN (COSTS OFF) SELECT gm_t1.id, md5(s) FROM gm_t1, generate_series(1, 2) g ORDER BY 1, 2;
SELECT count(*) FROM (SELECT gm_t1.id, md5(s) FROM gm_t1, generate_series(1, 2) g ORDER BY 1, 2) x;
SELECT gs_check('SELECT gm_t1.id, md5(s) AS h FROM gm_t1, generate_series(1, 2) g ORDER BY 1, 2');
SET parallel_leader_participation = off;
DROP TABLE gm_t1;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;

-- with JIT-compiled expressions above and below the node (where the server
-- has JIT): parents deform its MinimalTuple slots
SET jit = on;
SET jit_above_cost = 0;
SET jit_inline_above_cost = 0;
SET jit_optimize_above_cost = 0;
SET enable_hashagg = off;
SELECT gs_check('SELECT k % 7 AS a, sum(v) AS total, max(s) AS top FROM m1 WHERE v > -500 GROUP BY k % 7');
RESET enable_hashagg;
RESET jit;
RESET jit_above_cost;
RESET jit_inline_above_cost;
RESET jit_optimize_above_cost;

-- empty input and one row
SELECT gs_check('SELECT k, v FROM m1 WHERE false ORDER BY k');
SELECT gs_check('SELECT k, v FROM m1 WHERE id = 7 ORDER BY k');
SELECT gs_check('SELECT k, v FROM m1 WHERE v IS NULL ORDER BY k LIMIT 3');
