/* gpusort--1.1--1.2.sql */

\echo Use "ALTER EXTENSION gpusort UPDATE TO '1.2'" to load this file. \quit

-- gpusort_stat gains the counts of the stock Aggs and WindowAggs the planner
-- left, by the kind of reason EXPLAIN shows for them ("GpuAgg Not Used",
-- "GpuWindow Not Used"; README: Statistics).  A view's columns cannot be
-- added in the middle: the view and its function are made again, with the
-- columns of src/runtime/stat.h, in its order.
DROP VIEW gpusort_stat;
DROP FUNCTION gpusort_stat();

CREATE FUNCTION gpusort_stat(
    OUT dbid oid,
    OUT sorts_gpu bigint,
    OUT sorts_cpu bigint,
    OUT sorts_tuplesort bigint,
    OUT sorts_cancelled bigint,
    OUT cpu_by_setting bigint,
    OUT cpu_few_rows bigint,
    OUT cpu_parallel_worker bigint,
    OUT cpu_sessions_cap bigint,
    OUT cpu_gpu_unavailable bigint,
    OUT tuplesort_no_encoding bigint,
    OUT tuplesort_max_memory bigint,
    OUT tuplesort_total_memory bigint,
    OUT tuplesort_row_limit bigint,
    OUT stock_min_rows bigint,
    OUT stock_no_encoding bigint,
    OUT stock_max_memory bigint,
    OUT rows_sorted bigint,
    OUT bytes_sorted bigint,
    OUT tie_groups bigint,
    OUT tie_rows bigint,
    OUT strcoll_checks bigint,
    OUT strcoll_repairs bigint,
    OUT spills bigint,
    OUT gpu_bytes bigint,
    OUT windows_computed bigint,
    OUT windows_tuplesort bigint,
    OUT windows_max_memory bigint,
    OUT windows_total_memory bigint,
    OUT agg_not_used_setting bigint,
    OUT agg_not_used_grouping_sets bigint,
    OUT agg_not_used_function bigint,
    OUT agg_not_used_columns bigint,
    OUT agg_not_used_input bigint,
    OUT window_not_used_setting bigint,
    OUT window_not_used_function bigint,
    OUT window_not_used_frame bigint,
    OUT window_not_used_input bigint,
    OUT intake_ms float8,
    OUT keys_ms float8,
    OUT sort_ms float8,
    OUT ties_ms float8,
    OUT verify_ms float8,
    OUT emit_ms float8,
    OUT window_ms float8,
    OUT stats_reset timestamptz)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'gpusort_stat'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

CREATE VIEW gpusort_stat AS
SELECT d.datname, s.*
  FROM gpusort_stat() s LEFT JOIN pg_catalog.pg_database d ON d.oid = s.dbid;
