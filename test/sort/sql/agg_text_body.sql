-- The text part of sql/sort_agg.sql, run in a database of each collation:
-- count(DISTINCT t) and percentile_disc over text, with ties under the
-- collation that differ in bytes, and a COLLATE "C" column beside;
-- string_agg and array_agg of text.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS gpusort;
RESET client_min_messages;
LOAD 'gpusort';
SET gpusort.min_rows = 0;
SET gpusort.parallel = on;
\set ECHO none
\i :gs_check_sql
\i :win_check_sql
\i :agg_check_sql
\set ECHO all
CREATE TABLE tx AS
SELECT i, i % 7 AS g,
	   CASE WHEN i % 17 = 0 THEN NULL
			WHEN i % 3 = 0 THEN md5((i % 50)::text)
			ELSE (ARRAY['a', 'A', 'a ', 'é', 'e', 'E', 'ä', '', 'ab', 'a-b', 'ab ', 'Z'])[1 + i % 12] END AS t
  FROM generate_series(1, 2000) i;
ANALYZE tx;
SELECT * FROM agg_check('SELECT g, count(DISTINCT t), count(t), count(*) FROM tx GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT count(DISTINCT t) FROM tx');
SELECT * FROM agg_check('SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY t), percentile_disc(ARRAY[0, 0.3, 1]) WITHIN GROUP (ORDER BY t) FROM tx GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY t COLLATE "C") FROM tx GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT g, mode() WITHIN GROUP (ORDER BY t) FROM tx GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT mode() WITHIN GROUP (ORDER BY t) FROM tx WHERE i % 3 = 0');
-- mode() of text under a nondeterministic collation stays with the Agg:
-- 'a' and 'A' are equal there, and which one a run starts with is the
-- sort's choice (so compared by the collation's equality)
CREATE COLLATION IF NOT EXISTS gs_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE txci AS SELECT i, g, t COLLATE gs_ci AS t FROM tx;
ANALYZE txci;
SELECT * FROM agg_check_eq('SELECT g, mode() WITHIN GROUP (ORDER BY t) FROM txci GROUP BY g ORDER BY g');
-- count(DISTINCT t) alone sorts t in byte order (equal values are equal
-- bytes under a deterministic collation); beside an aggregate that reads
-- the order, or under a nondeterministic collation, in the collation's
SELECT agg_explain_has('SELECT g, count(DISTINCT t) FROM tx GROUP BY g', 'COLLATE "C"');
SELECT agg_explain_has('SELECT g, count(DISTINCT t), percentile_disc(0.5) WITHIN GROUP (ORDER BY t) FROM tx GROUP BY g', 'COLLATE "C"');
SELECT * FROM agg_check('SELECT g, count(DISTINCT t), percentile_disc(0.5) WITHIN GROUP (ORDER BY t) FROM tx GROUP BY g ORDER BY g');
SELECT agg_explain_has('SELECT g, count(DISTINCT t) FROM txci GROUP BY g', 'COLLATE "C"');
SELECT * FROM agg_check('SELECT g, count(DISTINCT t), count(t) FROM txci GROUP BY g ORDER BY g');
SELECT * FROM agg_check('SELECT count(DISTINCT t) FROM txci');
SELECT * FROM agg_check('SELECT g, string_agg(t, '', '' ORDER BY i), array_agg(t ORDER BY i) FROM tx GROUP BY g ORDER BY g');
