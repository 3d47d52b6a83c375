-- tree_reduce aggregate: many rows, GROUP BY, NULLs, empty input, parallel
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS gpusort;
RESET client_min_messages;

-- row g: a root of weight g with g % 5 children of weight g % 7 - 3
CREATE TABLE tree_docs AS
SELECT g, format('<r w="%s">%s</r>', g, repeat(format('<c w="%s"/>', g % 7 - 3), g % 5))::xml AS doc
FROM generate_series(1, 2000) g;
INSERT INTO tree_docs VALUES (2001, NULL), (2002, NULL);

-- expected values computed without tree_reduce
CREATE VIEW tree_expect AS
SELECT g, g % 3 AS grp,
       g + (g % 5) * (g % 7 - 3) AS sum,
       1 + g % 5 AS count,
       CASE WHEN g % 5 = 0 THEN g ELSE g + g % 7 - 3 END AS max_path,
       CASE WHEN g % 5 = 0 THEN 1 ELSE 2 END AS height
FROM generate_series(1, 2000) g;

SELECT tree_reduce(doc, 'sum') AS sum, (SELECT sum(sum) FROM tree_expect) AS expected_sum,
       tree_reduce(doc, 'count') AS count, (SELECT sum(count) FROM tree_expect) AS expected_count,
       tree_reduce(doc, 'max_path') AS max_path, tree_reduce(doc, 'height') AS height,
       tree_reduce(doc, 'min', 'w') AS min
FROM tree_docs;

-- the same as xpath over the same column
SELECT tree_reduce(doc, 'sum') = sum((xpath('sum(//@w)', doc))[1]::text::float8) AS same_as_xpath
FROM tree_docs;

-- GROUP BY (sorted and hashed), compared group by group with the expectation
SET enable_hashagg = off;
SELECT d.g % 3 AS grp, tree_reduce(doc, 'sum') AS sum, tree_reduce(doc, 'max_path') AS max_path,
       tree_reduce(doc, 'leaves') AS leaves
FROM tree_docs d GROUP BY 1 ORDER BY 1;
RESET enable_hashagg;
SET enable_sort = off;
SELECT r.grp, r.sum = e.sum AS sum_ok, r.max_path = e.max_path AS max_path_ok, r.count = e.count AS count_ok
FROM (SELECT g % 3 AS grp, tree_reduce(doc, 'sum') AS sum, tree_reduce(doc, 'max_path') AS max_path,
             tree_reduce(doc, 'count') AS count
      FROM tree_docs GROUP BY 1) r
JOIN (SELECT grp, sum(sum) AS sum, max(max_path) AS max_path, sum(count) AS count
      FROM tree_expect GROUP BY grp) e USING (grp)
ORDER BY 1;
RESET enable_sort;

-- NULL documents are skipped; no documents (or only NULLs) give NULL
SELECT tree_reduce(doc, 'count') FROM tree_docs WHERE g > 1998;
SELECT tree_reduce(doc, 'count') IS NULL AS only_nulls FROM tree_docs WHERE g > 2000;
SELECT tree_reduce(doc, 'count') IS NULL AS no_rows FROM tree_docs WHERE false;
SELECT tree_reduce(d, 'sum') IS NULL AS no_elements FROM (VALUES (''::text), ('just text')) v(d);

-- text documents, the three-argument form, a forest per row
SELECT tree_reduce(d, 'max_subtree', 'v'), tree_reduce(d, 'leaves', 'v')
FROM (VALUES ('<a v="1"/><b v="-5"><c v="7"/></b>'), ('<x v="4"><y v="-1"/></x>'), (NULL)) t(d);

-- parallel aggregation: partial states are serialized, combined, finalized
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF)
SELECT tree_reduce(doc, 'sum'), tree_reduce(doc, 'max_subtree') FROM tree_docs;
SELECT tree_reduce(doc, 'sum') AS sum, tree_reduce(doc, 'max_subtree') AS max_subtree,
       tree_reduce(doc, 'count') AS count, tree_reduce(doc, 'min_path') AS min_path
FROM tree_docs;
SELECT g % 3 AS grp, tree_reduce(doc, 'sum') FROM tree_docs GROUP BY 1 ORDER BY 1;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;

DROP VIEW tree_expect;
DROP TABLE tree_docs;
