-- The database test/sort/sqlsmith.sh lets sqlsmith loose on: every sort key type
-- GpuSort encodes, some it does not (a libc collation, interval, inet,
-- arrays, jsonb, an enum, xml), NULLs, duplicates, NaN, infinities, -0,
-- C and ICU collations, xml documents for tree_reduce, views (sorting ones
-- among them) and a partitioned table.  Small tables, so that random joins
-- stay fast.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS gpusort;
RESET client_min_messages;

CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');

-- every encodable key type; about 1 row in 10 NULL, values repeating
CREATE TABLE keys (
	id int PRIMARY KEY,
	i2 int2, i4 int4, i8 int8, o oid, b bool,
	f4 float4, f8 float8, n numeric,
	d date, tm time, ts timestamp, tz timestamptz,
	m money, u uuid,
	t_c text COLLATE "C", t_icu text COLLATE "und-x-icu",
	vc varchar(20) COLLATE "C", bp char(6) COLLATE "und-x-icu",
	by bytea);
INSERT INTO keys
SELECT i,
	CASE WHEN i % 11 = 0 THEN NULL ELSE (hashint4(i) % 50)::int2 END,
	CASE WHEN i % 13 = 0 THEN NULL ELSE hashint4(i + 1) % 200 END,
	CASE WHEN i % 7 = 0 THEN NULL WHEN i % 17 = 0 THEN -9223372036854775808 ELSE hashint8(i) % 1000 END,
	CASE WHEN i % 19 = 0 THEN NULL ELSE (abs(hashint4(i + 2)) % 100)::oid END,
	CASE WHEN i % 5 = 0 THEN NULL ELSE i % 3 = 0 END,
	CASE i % 23 WHEN 0 THEN NULL WHEN 1 THEN 'NaN' WHEN 2 THEN '-0' WHEN 3 THEN '-Infinity'
		ELSE (hashint4(i + 3) % 100) / 8.0 END,
	CASE i % 29 WHEN 0 THEN NULL WHEN 1 THEN 'NaN' WHEN 2 THEN '-0' WHEN 3 THEN 'Infinity'
		ELSE (hashint4(i + 4) % 1000) / 16.0 END,
	CASE i % 31 WHEN 0 THEN NULL WHEN 1 THEN 'NaN' WHEN 2 THEN 1e100 WHEN 3 THEN -0.000001
		ELSE round((hashint4(i + 5) % 10000) / 7.0, 3) END,
	CASE i % 37 WHEN 0 THEN NULL WHEN 1 THEN 'infinity' WHEN 2 THEN '-infinity'
		ELSE date '2000-01-01' + hashint4(i + 6) % 400 END,
	CASE WHEN i % 41 = 0 THEN NULL ELSE time '00:00' + (abs(hashint4(i + 7)) % 86400) * interval '1 s' END,
	CASE i % 43 WHEN 0 THEN NULL WHEN 1 THEN 'infinity'
		ELSE timestamp '2020-01-01' + (hashint4(i + 8) % 100000) * interval '1 min' END,
	CASE i % 47 WHEN 0 THEN NULL WHEN 1 THEN '-infinity'
		ELSE timestamptz '2020-01-01 00:00+00' + (hashint4(i + 9) % 100000) * interval '1 min' END,
	CASE WHEN i % 53 = 0 THEN NULL ELSE ((hashint4(i + 10) % 10000) / 100.0)::numeric::money END,
	CASE WHEN i % 59 = 0 THEN NULL ELSE md5((i % 150)::text)::uuid END,
	CASE WHEN i % 61 = 0 THEN NULL WHEN i % 67 = 0 THEN '' ELSE substr(md5((i % 120)::text), 1, 1 + i % 9) END,
	CASE WHEN i % 71 = 0 THEN NULL ELSE (ARRAY['apple', 'Apple', 'äpfel', 'zebra', 'Zürich', 'a b', 'ab', '', 'ﬁne', 'fine'])[1 + i % 10] || (i % 4) END,
	CASE WHEN i % 73 = 0 THEN NULL ELSE repeat('x', i % 5) || (i % 30) END,
	CASE WHEN i % 79 = 0 THEN NULL ELSE (ARRAY['a', 'b ', 'B', 'ä', ' '])[1 + i % 5] END,
	CASE WHEN i % 83 = 0 THEN NULL ELSE decode(substr(md5((i % 90)::text), 1, 2 * (i % 6)), 'hex') END
FROM generate_series(1, 600) i;

-- types and collations GpuSort has no encoder for (it hands those sorts to
-- tuplesort) next to ones it has
CREATE TABLE other (
	id int, k int, txt_libc text COLLATE "C.utf8", iv interval, ip inet,
	arr int[], js jsonb, e mood, r int4range, t text);
INSERT INTO other
SELECT i, i % 17,
	CASE WHEN i % 9 = 0 THEN NULL ELSE chr(65 + i % 26) || chr(97 + i % 5) END,
	CASE WHEN i % 10 = 0 THEN NULL ELSE (i % 13) * interval '1 day' + (i % 5) * interval '1 month' END,
	CASE WHEN i % 12 = 0 THEN NULL ELSE ('10.0.' || (i % 7) || '.' || (i % 3))::inet END,
	CASE WHEN i % 14 = 0 THEN NULL ELSE ARRAY[i % 4, i % 3] END,
	CASE WHEN i % 15 = 0 THEN NULL ELSE jsonb_build_object('a', i % 6, 'b', (i % 2) = 0) END,
	CASE WHEN i % 16 = 0 THEN NULL ELSE (enum_range(NULL::mood))[1 + i % 3] END,
	CASE WHEN i % 18 = 0 THEN NULL ELSE int4range(i % 10, i % 10 + i % 4) END,
	md5((i % 40)::text)
FROM generate_series(1, 400) i;

-- xml documents for tree_reduce(xml, op), weights and all
CREATE TABLE docs (id int, grp int, doc xml);
INSERT INTO docs
SELECT i, i % 5,
	CASE WHEN i % 10 = 0 THEN NULL
		ELSE xmlparse(document '<r w="' || (i % 7) || '"><a w="' || (i % 3) || '"><b w="2"/><b w="' || i || '"/></a><c w="1"/></r>') END
FROM generate_series(1, 60) i;

-- a partitioned table (range, with a default partition)
CREATE TABLE parted (k int, d date, s text COLLATE "C", v float8) PARTITION BY RANGE (k);
CREATE TABLE parted_lo PARTITION OF parted FOR VALUES FROM (MINVALUE) TO (50);
CREATE TABLE parted_hi PARTITION OF parted FOR VALUES FROM (50) TO (100);
CREATE TABLE parted_def PARTITION OF parted DEFAULT;
INSERT INTO parted
SELECT CASE WHEN i % 20 = 0 THEN NULL ELSE hashint4(i) % 150 END,
	date '2021-01-01' + i % 90, md5((i % 60)::text),
	CASE WHEN i % 25 = 0 THEN 'NaN' ELSE (hashint4(-i) % 100) / 3.0 END
FROM generate_series(1, 500) i;
CREATE INDEX ON parted (k);
CREATE INDEX ON keys (i4, t_c);
CREATE INDEX ON other (k);

-- views, some of which sort
CREATE VIEW keys_sorted AS SELECT id, i8, t_icu, n FROM keys ORDER BY t_icu DESC, n NULLS FIRST;
CREATE VIEW keys_ranked AS
	SELECT id, i4, f8, rank() OVER (PARTITION BY i4 ORDER BY f8, id) AS r FROM keys;
CREATE VIEW keys_other AS
	SELECT k.id, k.i2, k.t_c, o.iv, o.e FROM keys k JOIN other o ON k.i4 % 17 = o.k;
CREATE VIEW tree_sums AS
	SELECT grp, tree_reduce(doc, 'sum') AS total FROM docs GROUP BY grp;

-- parallel plans (Gather Merge over the workers' sorts, which GpuSort
-- replaces) for these small tables, with test/sort/sqlsmith.sh's zero
-- parallel costs; the catalog stays too small for parallel scans
ALTER TABLE keys SET (parallel_workers = 2);
ALTER TABLE other SET (parallel_workers = 2);
ALTER TABLE parted_lo SET (parallel_workers = 2);
ALTER TABLE parted_hi SET (parallel_workers = 2);

ANALYZE;
