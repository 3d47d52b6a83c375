-- GpuSort under sorted set operations: UNION, INTERSECT, EXCEPT ALL, each
-- compared, whole result in order, with stock PostgreSQL.  The planner
-- shapes them differently by version (a Sort over an Append up to 16, a
-- Merge Append of sorted branches for UNION from 17, and no Subquery Scans
-- under INTERSECT from 18): sort_setops_1.out and sort_setops_2.out are
-- those plans.
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

CREATE TABLE so1 (id int, k int, v int);
INSERT INTO so1 SELECT i, i % 200, hashint4(i) % 1000 FROM generate_series(1, 2000) i;
CREATE TABLE so2 (id int, k int, w int);
INSERT INTO so2 SELECT i, i % 300, hashint4(-i) % 50 FROM generate_series(1, 1500) i;
ANALYZE so1, so2;
SET enable_hashagg = off;

EXPLAIN (COSTS OFF) SELECT k FROM so1 UNION SELECT k FROM so2;
SELECT gs_check('SELECT k FROM so1 UNION SELECT k FROM so2');
EXPLAIN (COSTS OFF) SELECT k FROM so1 INTERSECT SELECT k FROM so2;
SELECT gs_check('SELECT k FROM so1 INTERSECT SELECT k FROM so2');
SELECT gs_check('SELECT k, w FROM so2 EXCEPT ALL SELECT k, v FROM so1');

DROP TABLE so1, so2;
