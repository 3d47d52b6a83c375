#!/usr/bin/env python3
"""Seeded random differential of gpusort against stock PostgreSQL (issue 39).

Loads a few tables (every key type GpuSort encodes, NULLs, duplicates,
NaN, -0, infinities, numeric past 128 bits, intervals equal across months,
days and microseconds, text shaped like users' data in C, libc, ICU and
nondeterministic ICU collations, 1-10 kB strings with long shared
prefixes), then generates random queries from --seed: ORDER BY of 1-4
keys (columns and expressions, COLLATE, ASC/DESC, NULLS FIRST/LAST, types
without an encoder), LIMIT/OFFSET and FETCH WITH TIES, DISTINCT and
DISTINCT ON, window functions over every frame kind, aggregates that
sort (GpuAgg's and others), GROUP BY, merge joins, set operations,
correlated subqueries and LATERAL, scroll cursors read backward, a
partitioned table; each with random
session settings (parallel plans, gpusort.max_memory small enough to
spill, gpusort.min_rows = 0, hash aggregation or joins off, gpusort's
own switches).  Every query runs with gpusort on and with
gpusort.enabled = off (stock), in the same session with the same
settings, and the two are compared:

  - results, in order: the sequence of the ORDER BY keys (the generator
    puts them first in the output) must be the same, each key compared
    with its type's equality (-0 = 0, 1.5 = 1.50, '1 mon' = '30 days',
    'a' = 'A' in a case-insensitive collation, asked of the server);
    the rows of a run of equal keys are compared as multisets, as text
    (stock may order ties otherwise).  Where a query returns one of
    several equal values (DISTINCT, GROUP BY keys, min/max, mode,
    percentile_disc of -0 and 0, or of '1 mon' and '30 days') those
    columns are compared with their type's equality; everything else
    exactly, floats included (queries whose float results would depend on
    the order of equal rows are not generated);
  - errors: both raise the same SQLSTATE and message, or neither.

Each failing query is printed with its settings (a psql script that
reproduces it) and both sides' first differing row; the last line is
"randdiff: N passed, M failed" and the exit status 1 if M > 0.

    randdiff.py [--seed S] [--queries N] [--rows N] [--timing] [--report FILE]
                [--only I[,J...] | --first I] [--reps N] [--timeout S]
                [--data-seed S] [--no-load] [--max-print N] [--csv FILE] [--verbose]

Connects per PGHOST, PGPORT, PGUSER, PGDATABASE (a database whose
default collation is en_US.UTF-8, the collations below installed, and
gpusort loaded in every session: shared_preload_libraries); the tables
rd (--rows rows), rd2 (2000) and rdp (rd partitioned) are (re)created
there unless loaded already with the same --rows and --data-seed
(--no-load: used as they are).  Query I of seed S is the same whatever
--queries is: --only I runs it alone (with --verbose: its SQL).

--timing (bench/sort/randdiff.sh): after the comparison each query is
timed, gpusort and stock alternated, by EXPLAIN (ANALYZE, TIMING OFF)'s
planning + execution time (no rows sent to the client), the best of
--reps; where gpusort took more than the bar (--bar, default 1.5x stock
+ 20 ms), both run 3 more times and the medians count.  --stop-after
bounds the run's time (a device call's) and reports the queries it ran;
--no-compare times without fetching and comparing results (10^6 rows on
the GPU machine, where fetching whole results takes most of a call).  At
LOAD_JOBS_MIN_ROWS rows and more the two large INSERTs of the load run in
as many sessions as there are cores (up to 16).  Prints the distribution of gpusort/stock
ratios and the worst queries, and writes them to --report as markdown.

Needs python3 and psycopg2 (Debian's python3-psycopg2), or, without it,
PostgreSQL's libpq (libpq.so.5): test/sort/pqshim.py, beside this script,
is the part of psycopg2 used here over libpq through ctypes (how it finds
libpq: its header); GS_RANDDIFF_SHIM=1 uses it even where psycopg2 is
installed.  Run by test/sort/cpu/randdiff.sh (CI) and
bench/sort/randdiff.sh (timing).
"""
import argparse
import collections
import copy
import decimal
import json
import math
import os
import random
import re
import statistics
import sys
import time

# Every value comes back as the server's text: exact comparisons, and no
# time spent converting to Python objects.  psycopg2 is told so (a RAW
# typecaster for every type); where it is missing, or GS_RANDDIFF_SHIM=1,
# pqshim.py (beside this script: the part of psycopg2 used here, over
# libpq through ctypes) returns text anyway.
DRIVER = 'psycopg2'
try:
    if os.environ.get('GS_RANDDIFF_SHIM') == '1':
        raise ImportError('GS_RANDDIFF_SHIM=1')
    import psycopg2
    import psycopg2.extensions
    _RAW = psycopg2.extensions.new_type(
        tuple(psycopg2.extensions.string_types.keys()), 'RAW', lambda s, cur: s)
    psycopg2.extensions.register_type(_RAW)
except ImportError as e_psycopg2:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sys.dont_write_bytecode = True      # no __pycache__ in the checkout
    try:
        import pqshim as psycopg2
    except ImportError as e_shim:
        sys.exit('randdiff: needs psycopg2 (apt-get install python3-psycopg2) or libpq for pqshim.py\n'
                 '  psycopg2: %s\n  %s' % (e_psycopg2, e_shim))
    DRIVER = 'pqshim (%s)' % psycopg2.libpq_path

COLLATIONS = ['C', 'POSIX', 'en_US.utf8', 'C.utf8', 'de_DE.utf8', 'sv_SE.utf8',
              'tr_TR.utf8', 'und-x-icu', 'de-x-icu', 'sv-x-icu', 'tr-x-icu']
COLL_WEIGHTS = [3, 1, 3, 3, 3, 3, 3, 3, 1, 1, 1]
R2 = 2000           # rows of rd2
DATA_VERSION = 7    # bump when the data below changes

# ---------------------------------------------------------------------------
# the data

DATA_SQL = r"""
DROP TABLE IF EXISTS rd, rd2, rdp, rd_meta CASCADE;
DROP COLLATION IF EXISTS rd_ci;
DROP COLLATION IF EXISTS rd_ai;
DROP FUNCTION IF EXISTS rd_text(bigint, bigint, boolean), rd_cat(bigint, bigint),
    rd_grp(bigint), rd_iv(bigint, bigint), rd_f8(bigint, bigint);

-- text shaped like users' data: names with hyphens and apostrophes,
-- e-mails, URLs, addresses, punctuation that glibc's strxfrm orders apart
-- from strcoll, accents, case variants, Turkish dotted and dotless i,
-- empty strings, NULLs and (long_ok) 1-10 kB strings with a long shared
-- prefix
CREATE FUNCTION rd_text(h bigint, g bigint, long_ok boolean) RETURNS text
IMMUTABLE LANGUAGE sql AS $$
SELECT CASE
  WHEN h % 40 = 0 THEN NULL
  WHEN h % 40 = 1 THEN ''
  WHEN h % 40 = 2 THEN CASE WHEN long_ok
      THEN repeat('Prefix-Commun Électronique ', 40 + (g % 330)::int) || (g % 1000)
      ELSE 'Prefix-Commun Électronique ' || (g % 1000) END
  WHEN h % 40 = 3 THEN CASE WHEN long_ok THEN repeat('Prefix-Commun Électronique ', 40) ELSE 'Prefix ' END
      || (ARRAY['Téléviseurs', 'téléviseurs', 'Telephones', 'Téléphones-Mobiles', 'Tele phones',
                'TÉLÉVISEURS'])[1 + g % 6] || ' ' || (g / 6 % 100)
  WHEN h % 40 < 8 THEN
      (ARRAY['Anne-Marie', 'Jean-Luc', 'Zoë', 'Chloé', 'Søren', 'Åsa', 'Ömer', 'İlker', 'Dmitri',
             'Seán', 'Mary Jo', 'Mary-Jo', 'Marie-Hélène', 'José Luis', 'Zoe', 'ana', 'Ana', 'ANA'])[1 + g % 18]
      || ' ' ||
      (ARRAY['O''Brien', 'OBrien', 'O Brien', 'D''Angelo', 'Lefèvre-Durand', 'Lefevre Durand',
             'van der Berg', 'Van Der Berg', 'MacDonald', 'Mc Donald', 'Ødegaard', 'Åström', 'Çelik',
             'Iñárritu', 'Núñez', 'Nunez', 'd''Arc', 'Dupont-Lefèvre'])[1 + g / 18 % 18]
      || CASE WHEN g % 5 = 0 THEN '' ELSE ' ' || (g / 324 % 1000) END
  WHEN h % 40 < 10 THEN
      (ARRAY['anne-marie', 'jean.luc', 'zoe', 'o''brien', 'soren', 'Zoë', 'jl_dupont'])[1 + g % 7]
      || '.' || (g / 7 % 2000) || '@'
      || (ARRAY['example.com', 'mail.example-shop.co.uk', 'exämple.de', 'EXAMPLE.com'])[1 + g / 14000 % 4]
  WHEN h % 40 < 12 THEN
      (ARRAY['https://www.example-shop.com/catégorie/', 'http://example.com/a-b/', 'http://example.com/a_b/',
             'https://Example.com/', 'https://www.example-shop.com/categorie/'])[1 + g % 5]
      || (ARRAY['electronique/televiseurs', 'maison-jardin/cuisine', 'maison_jardin', ''])[1 + g / 5 % 4]
      || '?page=' || (g / 20 % 50) || '&id=' || (g / 1000 % 10000)
  WHEN h % 40 < 16 THEN
      (ARRAY['10 +5 Co-Op', '10-5coop', '1,000_x', '1,000 #x', '10 5 coop', '1000x', '10 +5 co-op',
             '1.000,5', '1 000', '-1', '+1', '#1', '(1)'])[1 + g % 13]
      || CASE WHEN g % 3 = 0 THEN '' ELSE ' ' || (g / 13 % 1000) END
  WHEN h % 40 < 19 THEN
      (g % 9999)::text || (ARRAY['', '-B', ' 1/2', '-A', 'b'])[1 + g / 9999 % 5] || ' '
      || (ARRAY['Main', 'Main-Street', 'Old Mill', 'Old-Mill', 'St. James', 'Saint James', 'Rue de l''Église',
                'Rue de l Eglise'])[1 + g / 49995 % 8] || ' St.'
  ELSE
      (ARRAY['apple', 'Apple', 'APPLE', 'äpfel', 'Äpfel', 'apfel', 'zebra', 'Zürich', 'Zurich', 'résumé',
             'resume', 'Resume', 'RÉSUMÉ', 'coop', 'co-op', 'Co-Op', 'co op', 'ıstanbul', 'İstanbul',
             'Istanbul', 'istanbul', 'ISTANBUL', 'ıi', 'Iİ', 'ß', 'ss', 'SS', 'straße', 'strasse', 'Straße',
             'Æble', 'aeble', 'Ølen', 'Olen', 'Åsa', 'Asa', 'aa', 'Aa', 'AA', 'ab', 'a b', 'a-b', 'a''b',
             'ﬁne', 'fine', 'ǆ', 'dž', 'ç', 'c', 'Ç', 'ñ', 'n', 'ö', 'o', 'ø', 'å', 'ä', 'z', 'Z', 'ĳ', 'ij',
             '-', '--', '_', ' ', '  lead', 'trail  ', 'x', 'ü', 'u', 'ue', 'Ω', 'ω', '日本', '한국어', '😀'])[1 + g % 76]
      || CASE WHEN g / 76 % 3 = 0 THEN '' ELSE ' ' || (g / 228 % 50) END
END $$;

-- a category of about 300 values with long shared prefixes
CREATE FUNCTION rd_cat(h bigint, g bigint) RETURNS text IMMUTABLE LANGUAGE sql AS $$
SELECT CASE WHEN h % 200 = 0 THEN NULL ELSE
  (ARRAY['Électronique grand public > Téléviseurs > Écrans plats ',
         'Électronique grand public > Téléviseurs > Écrans courbes ',
         'Électronique grand public > Téléphones > Mobiles ',
         'Maison et jardin > Cuisine > Ustensiles > ',
         'Maison et jardin > Cuisine > Électroménager > ',
         'Maison-et-jardin > Cuisine > '])[1 + g % 6] || lpad((g / 6 % 50)::text, 3, '0') END $$;

-- 20 groups (and NULL) for PARTITION BY and GROUP BY
CREATE FUNCTION rd_grp(h bigint) RETURNS text IMMUTABLE LANGUAGE sql AS $$
SELECT CASE WHEN h % 50 = 0 THEN NULL ELSE
  (ARRAY['north', 'North', 'south', 'Süd', 'east', 'Öst', 'west', 'ouest', '', 'centre', 'center',
         'Ísland', 'İzmir', 'izmir', 'ıspir', 'co-op', 'coop', 'Co-Op', 'a b', 'ab'])[1 + h / 50 % 20] END $$;

-- intervals: a third from a list of values equal across months, days
-- and microseconds ('1 mon' = '30 days' = '720:00:00'), the others mixed
CREATE FUNCTION rd_iv(h bigint, g bigint) RETURNS interval IMMUTABLE LANGUAGE sql AS $$
SELECT CASE WHEN h % 100 = 0 THEN NULL
  WHEN h % 3 = 0 THEN (ARRAY['1 mon', '30 days', '720:00:00', '1 mon -1 day 24:00:00', '29 days 24:00:00',
         '2 mons', '60 days', '1 year', '12 mons', '360 days', '-1 mon', '-30 days', '0', '00:00:00.000001',
         '1 day', '24:00:00', '1 day -00:00:00.000001'])[1 + g % 17]::interval
  ELSE ((g % 25) - 12) * interval '1 mon' + ((g / 25 % 61) - 30) * interval '1 day'
       + ((g / 1525) % 100000000000) * interval '1 microsecond' END $$;

-- float8 with NULL, NaN, infinities, -0 and 0, huge and denormal values
CREATE FUNCTION rd_f8(h bigint, g bigint) RETURNS float8 IMMUTABLE LANGUAGE sql AS $$
SELECT CASE h % 100 WHEN 0 THEN NULL WHEN 1 THEN 'NaN' WHEN 2 THEN 'Infinity' WHEN 3 THEN '-Infinity'
  WHEN 4 THEN '-0' WHEN 5 THEN '0' WHEN 6 THEN 1e300 WHEN 7 THEN -1e300 WHEN 8 THEN 5e-324
  ELSE CASE WHEN g % 2 = 0 THEN ((g / 2 % 20000) - 10000) / 64.0 ELSE ((g / 2 % 20000) - 10000) / 7.0 END END $$;

-- nondeterministic ICU collations: case-insensitive, and accent- and
-- case-insensitive
CREATE COLLATION rd_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE COLLATION rd_ai (provider = icu, locale = 'und-u-ks-level1', deterministic = false);

CREATE TABLE rd (
  id int NOT NULL, grp text, cat text,
  i2 int2, i4 int4, i8 int8, qty int4, n numeric, price numeric(10,2),
  f4 float4, f8 float8, d date, ts timestamp, tz timestamptz, tm time, iv interval, ivj interval,
  b bool, u uuid, by bytea, m money, o oid, nm name, bp char(8), vc varchar(300),
  t text, tc text COLLATE "C", ticu text COLLATE "und-x-icu", tsv text COLLATE "sv_SE.utf8");

INSERT INTO rd
SELECT i, rd_grp(h1), rd_cat(h2, h3),
  CASE WHEN h1 % 20 = 0 THEN NULL ELSE (h2 % 100) - 50 END,
  CASE WHEN h2 % 40 = 0 THEN NULL ELSE (h3 % 20000) - 10000 END,
  CASE h3 % 200 WHEN 0 THEN -9223372036854775808 WHEN 1 THEN 9223372036854775807 WHEN 2 THEN NULL
    ELSE (h4 % 50000) * 1000003 - 25000000000 END,
  CASE WHEN h4 % 50 = 0 THEN NULL ELSE h5 % 20 END,
  CASE h5 % 1000 WHEN 0 THEN 'NaN' WHEN 1 THEN 1e100 WHEN 2 THEN -1e100 WHEN 3 THEN 1e-20
    WHEN 4 THEN 'Infinity' WHEN 5 THEN '-Infinity' WHEN 6 THEN 12345678901234567890123456789.12
    WHEN 7 THEN -98765432109876543210987654321098765.43
    ELSE CASE WHEN h5 % 1000 > 985 THEN NULL ELSE round(((h6 % 2000000) - 1000000) / 100.0, 2) END END,
  CASE WHEN h6 % 50 = 0 THEN NULL ELSE (h7 % 100000) / 100.0 END,
  CASE h7 % 100 WHEN 0 THEN NULL WHEN 1 THEN 'NaN' WHEN 2 THEN 'Infinity' WHEN 3 THEN '-Infinity'
    WHEN 4 THEN '-0' WHEN 5 THEN '0'
    ELSE CASE WHEN h8 % 2 = 0 THEN ((h8 / 2 % 20000) - 10000) / 64.0 ELSE ((h8 / 2 % 2000) - 1000) / 3.0 END END,
  rd_f8(h8, h1),
  CASE h1 % 300 WHEN 0 THEN 'infinity' WHEN 1 THEN '-infinity' WHEN 2 THEN NULL
    ELSE date '2000-01-01' + (h2 % 3000)::int END,
  CASE WHEN i = 17 THEN '294276-12-31 23:00:00' WHEN i = 23 THEN '4713-11-25 00:00:00 BC'
    ELSE CASE h2 % 300 WHEN 0 THEN 'infinity' WHEN 1 THEN '-infinity' WHEN 2 THEN NULL
    ELSE timestamp '2020-01-01' + (h3 % CASE WHEN h3 % 2 = 0 THEN 20000 ELSE 2000000 END) * interval '1 min' END END,
  CASE WHEN i = 19 THEN '294276-12-30 23:00:00+00' WHEN i = 29 THEN '4713-11-25 00:00:00+00 BC'
    ELSE CASE h3 % 300 WHEN 0 THEN 'infinity' WHEN 1 THEN '-infinity' WHEN 2 THEN NULL
    ELSE timestamptz '2020-01-01 00:00+00' + (h4 % 5000000) * interval '1 s' + (h4 % 7) * interval '1 microsecond' END END,
  CASE WHEN h4 % 500 = 0 THEN '24:00:00'::time WHEN h4 % 500 = 1 THEN NULL
    ELSE time '00:00' + (h5 % 86400) * interval '1 s' + (h5 / 86400 % 3) * interval '1 ms' END,
  rd_iv(h5, h6),
  justify_interval(rd_iv(h5, h6)),
  CASE WHEN h6 % 10 = 0 THEN NULL ELSE h7 % 3 = 0 END,
  CASE WHEN h7 % 100 = 0 THEN NULL ELSE md5((h8 % 3000)::text)::uuid END,
  CASE h8 % 50 WHEN 0 THEN NULL WHEN 1 THEN '\x'::bytea WHEN 2 THEN '\x00'::bytea WHEN 3 THEN '\xff'::bytea
    ELSE decode(substr(md5((h1 % 5000)::text), 1, 2 * (1 + (h1 % 8)::int)), 'hex') END,
  CASE WHEN h1 % 50 = 1 THEN NULL ELSE (((h2 % 200000) - 100000) / 100.0)::numeric::money END,
  CASE WHEN h2 % 500 = 3 THEN 4294967295 ELSE h3 % 100000 END::oid,
  left(rd_text(h3, h4, false), 60)::name,
  CASE WHEN h4 % 33 = 0 THEN NULL ELSE (ARRAY['a', 'b ', 'B', 'ä', ' ', 'ab', 'a b', 'Ab', 'zz', 'ß', '', 'ǆ'])[1 + h5 % 12]
    || CASE WHEN h5 % 2 = 0 THEN '' ELSE (h6 % 100)::text END END,
  left(rd_text(h5, h6, false), 300),
  rd_text(h6, h7, true),
  rd_text(h7, h8, false),
  rd_text(h8, h1, false),
  rd_text(h1 + 7, h2 + 11, false)
FROM generate_series(1, @ROWS@) i,
  LATERAL (SELECT (hashint8(i * 16 + 1 + @SEED@ * 1000003) & 2147483647)::bigint AS h1,
                  (hashint8(i * 16 + 2 + @SEED@ * 1000003) & 2147483647)::bigint AS h2,
                  (hashint8(i * 16 + 3 + @SEED@ * 1000003) & 2147483647)::bigint AS h3,
                  (hashint8(i * 16 + 4 + @SEED@ * 1000003) & 2147483647)::bigint AS h4,
                  (hashint8(i * 16 + 5 + @SEED@ * 1000003) & 2147483647)::bigint AS h5,
                  (hashint8(i * 16 + 6 + @SEED@ * 1000003) & 2147483647)::bigint AS h6,
                  (hashint8(i * 16 + 7 + @SEED@ * 1000003) & 2147483647)::bigint AS h7,
                  (hashint8(i * 16 + 8 + @SEED@ * 1000003) & 2147483647)::bigint AS h8) h;

-- the other side of joins and subqueries, @R2@ rows: k repeats each
-- value twice (0..999), i2, grp, cat, t, x (rd.f8's values), n, d, iv
-- as in rd
CREATE TABLE rd2 (id int NOT NULL, k int, i2 int2, grp text, cat text, t text, x float8,
  n numeric(12,2), ts timestamp, d date, iv interval);
INSERT INTO rd2
SELECT i, (i * 7) % 1000,
  CASE WHEN h1 % 20 = 0 THEN NULL ELSE (h2 % 100) - 50 END,
  rd_grp(h3), rd_cat(h4, h5), rd_text(h5, h6, false), rd_f8(h6, h7),
  CASE WHEN h7 % 50 = 0 THEN NULL ELSE round(((h8 % 2000000) - 1000000) / 100.0, 2) END,
  CASE WHEN h1 % 100 = 0 THEN NULL ELSE timestamp '2020-01-01' + (h2 % 20000) * interval '1 min' END,
  CASE WHEN h3 % 100 = 0 THEN NULL ELSE date '2000-01-01' + (h4 % 3000)::int END,
  rd_iv(h5, h8)
FROM generate_series(1, @R2@) i,
  LATERAL (SELECT (hashint8(-i * 16 - 1 - @SEED@ * 1000003) & 2147483647)::bigint AS h1,
                  (hashint8(-i * 16 - 2 - @SEED@ * 1000003) & 2147483647)::bigint AS h2,
                  (hashint8(-i * 16 - 3 - @SEED@ * 1000003) & 2147483647)::bigint AS h3,
                  (hashint8(-i * 16 - 4 - @SEED@ * 1000003) & 2147483647)::bigint AS h4,
                  (hashint8(-i * 16 - 5 - @SEED@ * 1000003) & 2147483647)::bigint AS h5,
                  (hashint8(-i * 16 - 6 - @SEED@ * 1000003) & 2147483647)::bigint AS h6,
                  (hashint8(-i * 16 - 7 - @SEED@ * 1000003) & 2147483647)::bigint AS h7,
                  (hashint8(-i * 16 - 8 - @SEED@ * 1000003) & 2147483647)::bigint AS h8) h;

-- a partitioned copy of rd (Merge Append over the partitions' sorts)
CREATE TABLE rdp (LIKE rd) PARTITION BY RANGE (id);
CREATE TABLE rdp_1 PARTITION OF rdp FOR VALUES FROM (MINVALUE) TO (@P1@);
CREATE TABLE rdp_2 PARTITION OF rdp FOR VALUES FROM (@P1@) TO (@P2@);
CREATE TABLE rdp_3 PARTITION OF rdp DEFAULT;
INSERT INTO rdp SELECT * FROM rd;

CREATE INDEX ON rd (i4);
CREATE INDEX ON rd2 (k);
ALTER TABLE rd SET (parallel_workers = 2);
ALTER TABLE rdp_1 SET (parallel_workers = 2);
ALTER TABLE rdp_2 SET (parallel_workers = 2);
CREATE TABLE rd_meta (rows int, seed int, version int);
INSERT INTO rd_meta VALUES (@ROWS@, @SEED@, @VERSION@);
VACUUM ANALYZE rd, rd2, rdp, rd_meta;
"""


def load_data(conn, rows, seed):
    cur = conn.cursor()
    try:
        cur.execute('SELECT rows, seed, version FROM rd_meta')
        if cur.fetchone() == (str(rows), str(seed), str(DATA_VERSION)):
            return False
    except psycopg2.Error:
        pass
    sql = (DATA_SQL.replace('@ROWS@', str(rows)).replace('@SEED@', str(seed))
           .replace('@R2@', str(R2)).replace('@P1@', str(rows // 3 + 1))
           .replace('@P2@', str(2 * rows // 3 + 1)).replace('@VERSION@', str(DATA_VERSION)))
    cur.execute("SET client_min_messages = warning")
    for stmt in split_sql(sql):
        parts = load_parts(stmt, rows)
        if parts:
            run_parallel(parts)
        else:
            cur.execute(stmt)
    cur.execute("RESET client_min_messages")
    return True


# the two INSERTs that make most of the data: at 10^6 rows one session
# takes minutes over them (3 of a device call's 10 on the GPU machine)
_RD_ROWS = 'FROM generate_series(1, %d) i,'
_RDP_COPY = 'INSERT INTO rdp SELECT * FROM rd;'
LOAD_JOBS_MIN_ROWS = 500000


def load_parts(stmt, rows):
    """The statement cut into one per loading session, by ranges of the
    row number, where it is one of the two large INSERTs and the rows are
    many; else None."""
    jobs = min(os.cpu_count() or 1, 16)
    if rows < LOAD_JOBS_MIN_ROWS or jobs < 2:
        return None
    bounds = [1 + rows * j // jobs for j in range(jobs + 1)]
    if stmt.startswith('INSERT INTO rd\n') and (_RD_ROWS % rows) in stmt:
        return [stmt.replace(_RD_ROWS % rows, 'FROM generate_series(%d, %d) i,' % (bounds[j], bounds[j + 1] - 1))
                for j in range(jobs)]
    if stmt.strip() == _RDP_COPY:
        return ['INSERT INTO rdp SELECT * FROM rd WHERE id >= %d AND id < %d;' % (bounds[j], bounds[j + 1])
                for j in range(jobs)]
    return None


def run_parallel(stmts):
    """Runs each statement in a session of its own, all at once (the
    table is new, so the sessions' inserts do not wait on each other)."""
    import threading
    errors = []

    def one(stmt):
        try:
            c = psycopg2.connect('')
            c.autocommit = True
            c.cursor().execute(stmt)
            c.close()
        except psycopg2.Error as e:
            errors.append(e)
    threads = [threading.Thread(target=one, args=(x,)) for x in stmts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def split_sql(sql):
    """Statements of a script without $$ inside strings to worry about
    beyond function bodies."""
    out, cur, in_body = [], [], False
    for line in sql.splitlines():
        if line.strip().startswith('--') and not in_body:
            continue
        cur.append(line)
        if line.count('$$') % 2 == 1:
            in_body = not in_body
        if not in_body and line.rstrip().endswith(';'):
            out.append('\n'.join(cur))
            cur = []
    if ''.join(cur).strip():
        out.append('\n'.join(cur))
    return out


# ---------------------------------------------------------------------------
# value equality of the types whose equal values print differently

_DEC = decimal.Context(prec=2000, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)
_IV_PART = re.compile(r'([+-]?\d+) (year|mon|day)s?')
_IV_TIME = re.compile(r'([+-]?)(\d+):(\d+):(\d+)(?:\.(\d+))?')


def canon_float(s):
    return '0' if s == '-0' else s


def canon_numeric(s):
    if s in ('NaN', 'Infinity', '-Infinity'):
        return s
    d = decimal.Decimal(s)
    return str(d.normalize(_DEC)) if d else '0'


def canon_interval(s):
    """An interval's comparison value: PostgreSQL's interval_cmp_value,
    months of 30 days, days of 24 hours, in microseconds."""
    if s in ('infinity', '-infinity'):
        return s
    months = days = 0
    for num, unit in _IV_PART.findall(s):
        v = int(num)
        if unit == 'year':
            months += 12 * v
        elif unit == 'mon':
            months += v
        else:
            days += v
    usec = 0
    m = _IV_TIME.search(s)
    if m:
        sign = -1 if m.group(1) == '-' else 1
        frac = (m.group(5) or '').ljust(6, '0')[:6]
        usec = sign * ((int(m.group(2)) * 3600 + int(m.group(3)) * 60 + int(m.group(4))) * 1000000 + int(frac))
    return str((months * 30 + days) * 86400000000 + usec)


def parse_array(s):
    """Elements of a one-dimensional array's text (None for NULL)."""
    if not (s.startswith('{') and s.endswith('}')):
        return [s]
    body, out, i = s[1:-1], [], 0
    while i < len(body):
        if body[i] == '"':
            j, buf = i + 1, []
            while body[j] != '"':
                if body[j] == '\\':
                    j += 1
                buf.append(body[j])
                j += 1
            out.append(''.join(buf))
            i = j + 2
        else:
            j = body.find(',', i)
            j = len(body) if j < 0 else j
            el = body[i:j]
            out.append(None if el == 'NULL' else el)
            i = j + 1
    return out


def _canon_array(fn):
    return lambda s: tuple(None if e is None else fn(e) for e in parse_array(s))


CANON = {
    'exact': None,
    'float': canon_float,
    'numeric': canon_numeric,
    'interval': canon_interval,
    'float[]': _canon_array(canon_float),
    'numeric[]': _canon_array(canon_numeric),
    'interval[]': _canon_array(canon_interval),
    # character(n) compares without its trailing spaces, so coalesce(bp, '')
    # ties '' with a value of spaces only
    'bpchar': lambda s: s.rstrip(' '),
}


def canon(kind, v):
    if v is None:
        return None
    f = CANON[kind]
    return v if f is None else f(v)


# ---------------------------------------------------------------------------
# the query generator

class Q:
    """A query: its SQL, the settings both sides run it with, the output
    columns that are its ORDER BY keys (index, kind), and the columns
    that may hold any one of several equal values (index -> kind)."""

    def __init__(self, shape, sql, keys, canon_cols=None, settings=None):
        self.shape, self.sql, self.keys = shape, sql, keys
        self.canon_cols = canon_cols or {}
        self.settings = settings or []
        self.cursor = None      # FETCH and MOVE commands of a cursor over sql


class E:
    """An expression: SQL, how its values compare (kind), its type class."""

    def __init__(self, sql, kind, typ):
        self.sql, self.kind, self.typ = sql, kind, typ


def _coll(r):
    return r.choices(COLLATIONS, COLL_WEIGHTS)[0]


TEXT_COLS = ['t', 't', 't', 'tc', 'ticu', 'tsv', 'vc', 'cat', 'cat', 'grp', 'nm', 'bp']
SHORT_TEXT_COLS = ['tc', 'ticu', 'tsv', 'vc', 'cat', 'grp', 'nm']
TEXT_FUNCS = ['lower({})', 'upper({})', "{} || 'x'", 'substr({}, 2, 6)', 'left({}, 40)', "coalesce({}, '')",
              "replace({}, '-', '')", 'initcap({})', '({})::varchar(5)', 'reverse({})', "ltrim({}, ' 1')",
              'left({}, 0)', "'Préfixe commun ' || repeat('-', 100) || {}"]


ND_COLLATIONS = ['rd_ci', 'rd_ai']


def text_expr(r, p='', cols=None, short=False):
    c = r.choice(cols or (SHORT_TEXT_COLS if short else TEXT_COLS))
    e, kind = p + c, 'exact'
    if r.random() < 0.06 and c not in ('bp', 'nm'):
        # a nondeterministic collation: equal keys of different text
        nd = r.choice(ND_COLLATIONS)
        e, kind = '%s COLLATE %s' % (e, nd), 'nd:' + nd
    elif r.random() < 0.35:
        e = '%s COLLATE "%s"' % (e, _coll(r))
    f = '{}'
    if r.random() < 0.3:
        f = r.choice(TEXT_FUNCS)
        e = f.format(e)
        if r.random() < 0.3:
            e, kind = '(%s) COLLATE "%s"' % (e, _coll(r)), 'exact'
    if c == 'bp' and f in ('{}', "coalesce({}, '')"):
        kind = 'bpchar'         # still character(n)
    return E(e, kind, 'text')


def int_expr(r, p=''):
    c = r.choice(['i2', 'i4', 'i4', 'qty', 'id', 'i8'])
    if c == 'i8':
        f = r.choice(['{}', '{}', '{} % 1000', '{} / 3'])
    else:
        f = r.choice(['{}', '{}', '{}', '{} * 2', '{} % 100', 'abs({})', '{} / 3', '-{}', '{}::int8'])
    extra = [p + 'i2 + ' + p + 'i4', 'length(%st)' % p, 'octet_length(%sby)' % p, '%sb::int' % p,
             'extract(month from %sd)::int' % p, '%si4 * 0' % p, 'nullif(%si2, %si2)' % (p, p)]
    if r.random() < 0.15:
        return E(r.choice(extra), 'exact', 'int')
    return E(f.format(p + c), 'exact', 'int')


def numeric_expr(r, p=''):
    return E(r.choice(['{p}n', '{p}n', '{p}price', '{p}price * {p}qty', '{p}n * 2', 'round({p}n)',
                       '{p}i4::numeric / 7', '{p}n + {p}price', 'trunc({p}n, 1)', '-{p}price', 'round({p}n, -2)']).format(p=p),
             'numeric', 'numeric')


def float_expr(r, p=''):
    return E(r.choice(['{p}f4', '{p}f8', '{p}f8', '{p}f8 * 2', '-{p}f8', '{p}f4::float8', 'floor({p}f8)',
                       '{p}n::float8', '{p}i4 / 3.0::float8', '{p}f8 + {p}f4']).format(p=p), 'float', 'float')


def time_expr(r, p=''):
    e, typ = r.choice([('{p}d', 'date'), ('{p}d', 'date'), ('{p}d + 7', 'date'), ('{p}ts::date', 'date'),
                       ('{p}ts', 'ts'), ('{p}ts', 'ts'), ("date_trunc('hour', {p}ts)", 'ts'),
                       ('{p}ts + {p}iv', 'ts'), ('{p}d::timestamp', 'ts'),
                       ('{p}tz', 'tz'), ('{p}tz', 'tz'), ("{p}tz + interval '1 day'", 'tz'),
                       ('{p}tm', 'time'), ("{p}tm + interval '5 hours'", 'time')])
    return E(e.format(p=p), 'exact', typ)


def interval_expr(r, p=''):
    return E(r.choice(['{p}iv', '{p}iv', '{p}iv * 2', 'justify_interval({p}iv)', '-{p}iv',
                       'justify_hours({p}iv)']).format(p=p), 'interval', 'interval')


def misc_expr(r, p=''):
    e, typ = r.choice([('{p}b', 'bool'), ('NOT {p}b', 'bool'), ('{p}i4 > 0', 'bool'), ('{p}u', 'uuid'),
                       ('{p}by', 'bytea'), ("convert_to({p}tc, 'UTF8')", 'bytea'), ('sha256({p}by)', 'bytea'),
                       ('{p}m', 'money'), ('{p}m * 2', 'money'), ('{p}o', 'oid'), ('{p}nm', 'name'),
                       ('{p}nm COLLATE "%s"' % _coll(r), 'name'), ('{p}bp', 'bpchar'),
                       ('{p}bp COLLATE "%s"' % _coll(r), 'bpchar')])
    return E(e.format(p=p), 'exact', typ)


def cast_expr(r, p=''):
    return E(r.choice(['{p}i4::text', '{p}d::text', '{p}f8::text', '{p}n::text', '{p}u::text',
                       '{p}iv::text', '{p}b::text', '{p}i2::float4', '{p}ts::timestamptz', '{p}bp::text',
                       '{p}vc::name', '{p}tm::text']).format(p=p), 'exact', 'cast')


def odd_expr(r, p=''):
    """Types GpuSort has no encoder for (and text_pattern_ops): the stock
    plan where first, the comparators where after an encoded key."""
    return E(r.choice(['ARRAY[{p}i2, {p}qty]', 'int4range({p}i2, {p}i2 + {p}qty)',
                       "('10.0.' || ({p}i4 & 255) || '.' || ({p}qty))::inet", "jsonb_build_object('a', {p}i2)",
                       '({p}i2, {p}grp)', "ARRAY[{p}grp, {p}tc]"]).format(p=p), 'exact', 'odd')


def key_expr(r, p=''):
    g = r.choices([text_expr, int_expr, numeric_expr, float_expr, time_expr, interval_expr, misc_expr,
                   cast_expr, odd_expr], [35, 15, 9, 10, 13, 5, 10, 3, 2])[0]
    e = g(r, p)
    if e.typ == 'cast':
        if '::float4' in e.sql:
            e.kind, e.typ = 'float', 'float'
        else:
            e.typ = 'text' if '::text' in e.sql or '::name' in e.sql else 'ts'
    return e


def low_card_expr(r, p=''):
    """Keys with few distinct values (DISTINCT, GROUP BY, PARTITION BY)."""
    choices = [
        (lambda: E(p + 'grp', 'exact', 'text'), 5),
        (lambda: E('%sgrp COLLATE "%s"' % (p, _coll(r)), 'exact', 'text'), 4),
        (lambda: E(p + 'cat', 'exact', 'text'), 4),
        (lambda: E('%scat COLLATE "%s"' % (p, _coll(r)), 'exact', 'text'), 4),
        (lambda: E('lower(%sgrp COLLATE "%s")' % (p, _coll(r)), 'exact', 'text'), 2),
        (lambda: E(p + 'i2', 'exact', 'int'), 3),
        (lambda: E(p + 'i4 % 10', 'exact', 'int'), 2),
        (lambda: E(p + 'b', 'exact', 'bool'), 2),
        (lambda: E(p + 'bp', 'exact', 'bpchar'), 1),
        (lambda: E("date_trunc('year', %sd)" % p, 'exact', 'tz'), 1),
        (lambda: E('floor(%sf4 / 100)' % p, 'float', 'float'), 1),
        (lambda: E(p + 'iv', 'interval', 'interval'), 1),
        (lambda: E('left(%st, 3)' % p, 'exact', 'text'), 2),
        (lambda: E('%sqty' % p, 'exact', 'int'), 1),
        (lambda: E('%sd' % p, 'exact', 'date'), 1),
        (lambda: E('%su' % p, 'exact', 'uuid'), 1),
        (lambda: E('%sgrp COLLATE rd_ci' % p, 'nd:rd_ci', 'text'), 1),
        (lambda: E('%scat COLLATE rd_ai' % p, 'nd:rd_ai', 'text'), 1),
    ]
    return r.choices([c for c, _ in choices], [w for _, w in choices])[0]()


def direction(r):
    d = r.choice(['', ' ASC', ' DESC', ' DESC'])
    n = r.choices(['', ' NULLS FIRST', ' NULLS LAST'], [6, 2, 2])[0]
    return d + n


def where_clause(r, rows, p='', allow_none=True):
    c = r.random()
    if allow_none and c < 0.55:
        return ''
    opts = ['{p}id %% {m} = {k}', '{p}i2 > {x}', "{p}cat LIKE 'Maison%%'", '{p}t IS NOT NULL',
            '{p}id <= {small}', '{p}b', '{p}f8 > 0', "{p}grp IN ('north', 'North', 'Süd', '')",
            '{p}id > {half}']
    m = r.choice([2, 3, 7, 10])
    return ' WHERE ' + (r.choice(opts) % ()).format(
        p=p, m=m, k=r.randrange(m), x=r.randint(-50, 40), small=r.choice([1, 2, 10, 50, 300]), half=rows // 2)


def payload(r, p='', n=None):
    cols = ['t', 'tc', 'ticu', 'tsv', 'cat', 'grp', 'i2', 'i4', 'i8', 'n', 'price', 'qty', 'f4', 'f8', 'd',
            'ts', 'tz', 'tm', 'iv', 'b', 'u', 'by', 'm', 'o', 'nm', 'bp', 'vc']
    n = r.randint(0, 3) if n is None else n
    if r.random() < 0.04:
        return [p + '*' if p else 'rd.*']
    return [p + c for c in r.sample(cols, n)]


def error_expr(r, p=''):
    """An expression that raises an error (with a message that does not
    depend on which row raises it) on some rows."""
    return r.choice(['{p}i4 / ({p}i2 % 7)', '{p}price / {p}qty', 'sqrt({p}f8)', '{p}i4 * 300000',
                     '{p}f8 * 1e300', 'ln({p}n)', '{p}i2 / 0', '({p}id / ({p}id % 1000))']).format(p=p)


class Gen:
    def __init__(self, rows):
        self.rows = rows

    def query(self, seed, i):
        r = random.Random('%d/%d' % (seed, i))
        shape = r.choices(list(SHAPES), [w for _, w in SHAPES.values()])[0]
        q = SHAPES[shape][0](self, r)
        q.shape = shape
        q.settings = self.settings(r, shape) + q.settings
        return q

    # -- session settings, the same for both sides
    def settings(self, r, shape):
        s = []
        if r.random() < 0.9:
            s.append(('gpusort.min_rows', '0'))
        elif r.random() < 0.5:
            s.append(('gpusort.min_rows', '1000'))
        if r.random() < 0.35:
            s += [('max_parallel_workers_per_gather', '2'), ('parallel_setup_cost', '0'),
                  ('parallel_tuple_cost', '0')]
            if r.random() < 0.7:
                s.append(('min_parallel_table_scan_size', '0'))
            if r.random() < 0.65:
                s.append(('gpusort.parallel', r.choice(['on', 'on', 'on', 'off'])))
        else:
            s.append(('max_parallel_workers_per_gather', '0'))
        if r.random() < 0.25:
            s.append(('gpusort.max_memory', r.choice(["'1MB'", "'1MB'", "'4MB'"])))
        if r.random() < 0.15:
            s.append(('work_mem', r.choice(["'64kB'", "'1MB'", "'256MB'"])))
        if r.random() < (0.5 if shape in ('group', 'setop', 'distinct', 'agg') else 0.15):
            s.append(('enable_hashagg', 'off'))
        if shape in ('join', 'subquery') and r.random() < 0.8:
            s += [('enable_hashjoin', 'off'), ('enable_nestloop', 'off')]
        if r.random() < 0.1:
            s.append(('enable_incremental_sort', 'off'))
        if r.random() < 0.1:
            s.append(('TimeZone', r.choice(["'UTC'", "'America/New_York'", "'Asia/Kolkata'", "'Pacific/Chatham'"])))
        if r.random() < 0.05:
            s.append(('enable_indexscan', 'off'))
        if shape == 'partitioned' and r.random() < 0.5:
            s += [('enable_partitionwise_aggregate', 'on'), ('enable_partitionwise_join', 'on')]
        for name, vals, p in [('gpusort.dict_ranks', ['off'], 0.1), ('gpusort.refine_ties', ['off'], 0.1),
                              ('gpusort.window_functions', ['off'], 0.05), ('gpusort.aggregates', ['off'], 0.05),
                              ('gpusort.sorted_grouping', ['off'], 0.05), ('gpusort.copy_rows', ['off'], 0.1),
                              ('gpusort.cpu_threads', ['1', '2', '3'], 0.15), ('gpusort.keep_memory', ['0'], 0.05),
                              ('gpusort.debug_scramble_keys', ['on'], 0.05)]:
            if r.random() < p:
                s.append((name, r.choice(vals)))
        return s

    # -- ORDER BY of 1-4 keys, LIMIT/OFFSET, FETCH ... WITH TIES
    def order_by(self, r, total=False):
        nk = r.choices([1, 2, 3, 4], [4, 4, 2, 1])[0]
        keys = [key_expr(r) for _ in range(nk)]
        limit = r.random() < 0.35
        ties = limit and r.random() < 0.2 and not total
        if (limit and not ties) or total:
            keys.append(E('id', 'exact', 'int'))
        sel, order = [], []
        for j, k in enumerate(keys):
            alias = 'k%d' % (j + 1)
            style = r.random()
            junk = self._junk(k) if r.random() < 0.12 else None
            if junk is not None:
                sel.append('%s AS %s' % (junk, alias))
                order.append(k.sql + direction(r))
            else:
                sel.append('%s AS %s' % (k.sql, alias))
                if style < 0.4:
                    order.append(alias + direction(r))
                elif style < 0.6:
                    order.append(str(j + 1) + direction(r))
                else:
                    order.append(k.sql + direction(r))
        if r.random() < 0.03 and keys[0].typ == 'text' and 'COLLATE' not in keys[0].sql:
            order[0] = '%s USING ~<~' % keys[0].sql
        sel += ['id'] + payload(r)
        sql = 'SELECT %s FROM %s%s ORDER BY %s' % (', '.join(sel), 'rd', where_clause(r, self.rows),
                                                  ', '.join(order))
        if ties:
            sql += ' FETCH FIRST %d ROWS WITH TIES' % r.choice([1, 5, 50, self.rows // 10])
        elif limit:
            lim = r.choice([None, 1, 10, 100, self.rows // 3])
            off = r.choice([None, 0, 5, self.rows // 2, self.rows - 1, self.rows + 10])
            if lim is not None:
                sql += ' LIMIT %d' % lim
            if off is not None or lim is None:
                sql += ' OFFSET %d' % (off or 0)
        return Q('', sql, [(j, k.kind) for j, k in enumerate(keys)])

    @staticmethod
    def _junk(k):
        """The key's value under another expression, so that the sort's
        key is a column the output does not have."""
        return {'text': "%s || ''", 'int': '%s + 0', 'numeric': '%s + 0', 'float': '%s + 0',
                'date': '%s + 0', 'ts': "%s + interval '0 s'", 'tz': "%s + interval '0 s'",
                'interval': "%s + interval '0 s'", 'bytea': "%s || ''::bytea",
                'money': '%s + 0::money'}.get(k.typ, None) and \
            {'text': "(%s) || ''", 'int': '(%s) + 0', 'numeric': '(%s) + 0', 'float': '(%s) + 0',
             'date': '(%s) + 0', 'ts': "(%s) + interval '0 s'", 'tz': "(%s) + interval '0 s'",
             'interval': "(%s) + interval '0 s'", 'bytea': "(%s) || ''::bytea",
             'money': '(%s) + 0::money'}[k.typ] % k.sql

    # -- a scroll cursor: backward scans, rescans (total orders)
    def cursor(self, r):
        q = self.order_by(r, total=True)
        n = self.rows
        cmds = []
        for _ in range(r.randint(3, 8)):
            k = r.choice([1, 3, 10, 100, n // 2, n + 5])
            cmds.append(r.choice(['FETCH %d FROM c', 'FETCH BACKWARD %d FROM c', 'FETCH ABSOLUTE %d FROM c',
                                  'FETCH ABSOLUTE -%d FROM c', 'FETCH RELATIVE -%d FROM c', 'MOVE %d FROM c',
                                  'MOVE BACKWARD %d FROM c', 'FETCH %d FROM c']) % k)
            if r.random() < 0.15:
                cmds.append(r.choice(['FETCH LAST FROM c', 'FETCH FIRST FROM c', 'FETCH PRIOR FROM c',
                                      'MOVE BACKWARD ALL FROM c', 'MOVE FORWARD ALL FROM c']))
        cmds.append(r.choice(['FETCH BACKWARD ALL FROM c', 'FETCH ALL FROM c', 'FETCH BACKWARD 20 FROM c']))
        q.cursor = cmds
        return q

    # -- DISTINCT
    def distinct(self, r):
        nk = r.choices([1, 2, 3], [4, 3, 1])[0]
        keys = [low_card_expr(r) if r.random() < 0.6 else key_expr(r) for _ in range(nk)]
        sel = ['%s AS k%d' % (k.sql, j + 1) for j, k in enumerate(keys)]
        cc = {j: k.kind for j, k in enumerate(keys) if k.kind != 'exact'}
        sql = 'SELECT DISTINCT %s FROM rd%s' % (', '.join(sel), where_clause(r, self.rows))
        if r.random() < 0.85:
            order = list(range(nk))
            r.shuffle(order)
            sql += ' ORDER BY ' + ', '.join('k%d%s' % (j + 1, direction(r)) for j in order)
            keyspec = [(j, keys[j].kind) for j in order]
            if r.random() < 0.2:
                sql += ' LIMIT %d' % r.choice([1, 10, 100])
        else:
            keyspec = []
        return Q('', sql, keyspec, cc)

    # -- DISTINCT ON
    def distinct_on(self, r):
        nk = r.choices([1, 2], [3, 1])[0]
        dkeys = [low_card_expr(r) if r.random() < 0.7 else key_expr(r) for _ in range(nk)]
        more = [key_expr(r) for _ in range(r.choice([0, 1, 1, 2]))]
        keys = dkeys + more + [E('id', 'exact', 'int')]
        sel = ['%s AS k%d' % (k.sql, j + 1) for j, k in enumerate(keys)]
        sql = 'SELECT DISTINCT ON (%s) %s FROM rd%s ORDER BY %s' % (
            ', '.join('k%d' % (j + 1) for j in range(nk)), ', '.join(sel + payload(r)),
            where_clause(r, self.rows), ', '.join('k%d%s' % (j + 1, direction(r)) for j in range(len(keys))))
        if r.random() < 0.2:
            sql += ' LIMIT %d OFFSET %d' % (r.choice([5, 50]), r.choice([0, 3]))
        return Q('', sql, [(j, k.kind) for j, k in enumerate(keys)])

    # -- window functions
    def window(self, r, table='rd', outer=True):
        nwin = r.choices([1, 2, 3], [6, 3, 1])[0]
        funcs, wins = [], []
        final_keys = None
        runcond = outer and r.random() < 0.12
        self.cost_parts = 1 << 30
        for w in range(nwin):
            spec, fs, pkeys, okeys, total = self._window_spec(r)
            if w == 0:
                final_keys = (pkeys, okeys)
                if runcond:
                    # a run condition (top-N per partition) on this one
                    fs = [r.choice((['row_number() OVER w'] if total else [])
                                   + ['rank() OVER w', 'dense_rank() OVER w', 'count(*) OVER w'])] + fs
            wname = 'w%d' % (w + 1)
            named = r.random() < 0.5
            if named:
                wins.append('%s AS (%s)' % (wname, spec))
            for f in fs:
                funcs.append(f.replace('OVER w', 'OVER ' + (wname if named else '(%s)' % spec)))
        pkeys, okeys = final_keys
        keys = [(e, d) for e, d in pkeys + okeys]
        if not keys or r.random() < 0.3:
            keys = [(E('id', 'exact', 'int'), direction(r))]
        sel = ['%s AS k%d' % (e.sql, j + 1) for j, (e, d) in enumerate(keys)]
        sel += ['id'] + ['%s AS f%d' % (f, j + 1) for j, f in enumerate(funcs)] + payload(r, n=r.choice([0, 0, 1]))
        where = where_clause(r, self.rows)
        # at most about 10^7 steps of quadratic frames (rows^2 / partitions)
        most = int(math.sqrt(1e7 * self.cost_parts))
        if self.rows > most:
            m = math.ceil(self.rows / most)
            where = ' WHERE id %% %d = %d' % (m, r.randrange(m))
        sql = 'SELECT %s FROM %s%s' % (', '.join(sel), table, where)
        if wins:
            sql += ' WINDOW ' + ', '.join(wins)
        order = ', '.join('k%d%s' % (j + 1, d) for j, (e, d) in enumerate(keys))
        keyspec = [(j, e.kind) for j, (e, d) in enumerate(keys)]
        if runcond:
            sql = 'SELECT * FROM (%s) s WHERE f1 %s ORDER BY %s' % (
                sql, r.choice(['<= 3', '< 10', '= 1']), order)
        else:
            sql += ' ORDER BY ' + order
        return Q('', sql, keyspec)

    def _window_spec(self, r):
        """(spec, functions with OVER w, partition keys, order keys, total)"""
        pkeys = []
        if r.random() < 0.8:
            for _ in range(r.choice([1, 1, 1, 2])):
                e = r.choice([lambda: E('grp', 'exact', 'text'),
                              lambda: E('grp COLLATE "%s"' % _coll(r), 'exact', 'text'),
                              lambda: E('cat', 'exact', 'text'),
                              lambda: E('cat COLLATE "%s"' % _coll(r), 'exact', 'text'),
                              lambda: E('b', 'exact', 'bool'), lambda: E('i2 % 5', 'exact', 'int'),
                              lambda: E('grp COLLATE rd_ci', 'nd:rd_ci', 'text')])()
                pkeys.append((e, direction(r)))
        total = r.random() < 0.55
        okeys = []
        frame = ''
        mode = r.choices(['none', 'ROWS', 'RANGE', 'GROUPS'], [2, 3, 4, 2])[0]
        offset_type = None
        if total and r.random() < 0.15:
            okeys = [(E('id', 'exact', 'int'), direction(r))]
            offset_type = 'int'
        else:
            if mode == 'RANGE' and r.random() < 0.7:
                e, offset_type = r.choice([(E('ts', 'exact', 'ts'), 'iv'), (E('d', 'exact', 'date'), 'iv'),
                                           (E('tz', 'exact', 'tz'), 'iv'), (E('tm', 'exact', 'time'), 'iv'),
                                           (E('iv', 'interval', 'interval'), 'iv'),
                                           (E('n', 'numeric', 'numeric'), 'num'),
                                           (E('price', 'numeric', 'numeric'), 'num'),
                                           (E('f8', 'float', 'float'), 'float'), (E('i4', 'exact', 'int'), 'int'),
                                           (E('i2', 'exact', 'int'), 'int'), (E('i8', 'exact', 'int'), 'int')])
                okeys = [(e, direction(r))]
                total = False
            else:
                for _ in range(r.choice([1, 1, 2])):
                    okeys.append((key_expr(r) if r.random() < 0.5 else low_card_expr(r), direction(r)))
                if total:
                    okeys.append((E('id', 'exact', 'int'), direction(r)))
        if not total and r.random() < 0.1:
            okeys, mode = [], r.choice(['none', 'whole'])
        if not total and mode == 'ROWS':
            mode = r.choice(['RANGE', 'GROUPS', 'none', 'whole'])
        if mode == 'RANGE' and offset_type is None:
            mode = r.choice(['RANGE0', 'GROUPS'])
        if mode == 'whole':
            frame = 'ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING'
        elif mode == 'RANGE0':
            frame = 'RANGE BETWEEN %s AND %s' % r.choice(
                [('UNBOUNDED PRECEDING', 'CURRENT ROW'), ('CURRENT ROW', 'UNBOUNDED FOLLOWING'),
                 ('UNBOUNDED PRECEDING', 'UNBOUNDED FOLLOWING'), ('CURRENT ROW', 'CURRENT ROW')])
        elif mode != 'none':
            frame = '%s %s' % (mode, self._frame_bounds(r, mode, offset_type))
        if frame and r.random() < 0.25:
            frame += ' EXCLUDE ' + r.choice(['CURRENT ROW', 'GROUP', 'TIES', 'NO OTHERS'])
        spec = ''
        if pkeys:
            spec += 'PARTITION BY ' + ', '.join(e.sql for e, d in pkeys)
        if okeys:
            spec += (' ' if spec else '') + 'ORDER BY ' + ', '.join(e.sql + d for e, d in okeys)
        if frame:
            spec += ' ' + frame
        fs = [self._window_func(r, total) for _ in range(r.choice([1, 2, 2, 3, 4]))]
        # WindowAgg aggregates each row's frame anew where the frame
        # excludes rows or its start moves (min, max, floats: no inverse
        # transition): rows x partition size steps
        if ('EXCLUDE' in frame and 'NO OTHERS' not in frame) or \
                (frame and 'BETWEEN UNBOUNDED PRECEDING' not in frame and 'whole' != mode):
            self.cost_parts = min(self.cost_parts, self._parts(pkeys))
        return spec, fs, pkeys, okeys, total

    @staticmethod
    def _parts(pkeys):
        n = 1
        for e, _ in pkeys:
            n *= 300 if e.sql.startswith('cat') else 20 if e.sql.startswith('grp') else \
                2 if e.sql == 'b' else 9
        return n

    def _frame_bounds(self, r, mode, offset_type):
        def off():
            if mode in ('ROWS', 'GROUPS'):
                return str(r.choice([0, 1, 2, 3, 5, 10, 100, 1000]))
            return {
                'int': lambda: str(r.choice([0, 1, 5, 100, 1000])),
                'num': lambda: r.choice(['0', '10.5', '1000', "'Infinity'"]) + '::numeric',
                'float': lambda: r.choice(['0', '0.5', '100', "'Infinity'"]) + '::float8',
                'iv': lambda: "interval '%s'" % r.choice(['0', '1 day', '2 hours', '1 mon', '7 days 12:00',
                                                            '1 year', '30 min']),
            }[offset_type]()
        pos = ['UNBOUNDED PRECEDING', 'P', 'CURRENT ROW', 'F', 'UNBOUNDED FOLLOWING']
        a = r.randrange(0, 4)
        b = r.randrange(max(a, 1), 5)
        if r.random() < 0.15:
            s = pos[a] if pos[a] not in 'PF' else '%s %s' % (off(), 'PRECEDING' if pos[a] == 'P' else 'FOLLOWING')
            if a <= 2:
                return s
        bounds = []
        for x in (a, b):
            t = pos[x]
            bounds.append(t if t not in 'PF' else '%s %s' % (off(), 'PRECEDING' if t == 'P' else 'FOLLOWING'))
        return 'BETWEEN %s AND %s' % tuple(bounds)

    def _window_func(self, r, total):
        numarg = lambda: r.choice(['i2', 'i4', 'i8', 'qty', 'n', 'price', 'price * qty', 'i4 * 2', 'n * 2',
                                   'i2::numeric / 3'] + (['f4', 'f8', 'f8 * 2', 'f4::float8'] if total else []))
        anyarg = lambda: r.choice(['t', 'tc', 'cat', 'grp', 'd', 'ts', 'tz', 'tm', 'iv', 'i4', 'n', 'f8', 'f4',
                                   'b', 'u', 'by', 'm', 'bp', 'nm', 'id', 'ticu', 'price * qty'])
        mmarg = lambda: r.choice(['i2', 'i4', 'i8', 'n', 'price', 'd', 'ts', 'tc', 'cat', 'grp COLLATE "%s"' % _coll(r)]
                                 + (['f8', 'f4', 'iv', 'tz'] if total else []))
        filt = lambda: r.choice(['', '', '', '', ' FILTER (WHERE b)', ' FILTER (WHERE i4 > 0)'])
        opts = [('rank() OVER w', 3), ('dense_rank() OVER w', 2), ('percent_rank() OVER w', 1),
                ('cume_dist() OVER w', 1), ('count(*)%s OVER w' % filt(), 2),
                ('count(%s) OVER w' % anyarg(), 1), ('sum(%s)%s OVER w' % (numarg(), filt()), 4),
                ('avg(%s) OVER w' % numarg(), 2), ('min(%s) OVER w' % mmarg(), 2), ('max(%s) OVER w' % mmarg(), 2),
                ('%s - avg(%s) OVER w' % (('i4',) * 2), 1),
                ('price / nullif(sum(price) OVER w, 0)', 1)]
        if total:
            opts += [('row_number() OVER w', 4), ('ntile(%d) OVER w' % r.choice([1, 2, 3, 10, 100]), 2),
                     ('lag(%s) OVER w' % anyarg(), 2), ('lead(%s, %d) OVER w' % (anyarg(), r.choice([1, 2, 5])), 2),
                     ('lag(i4, %d, -1) OVER w' % r.choice([1, 3]), 1), ("lead(t, 1, 'none') OVER w", 1),
                     ('first_value(%s) OVER w' % anyarg(), 2), ('last_value(%s) OVER w' % anyarg(), 2),
                     ('nth_value(%s, %d) OVER w' % (anyarg(), r.choice([1, 2, 3, 10])), 2),
                     ('stddev(%s) OVER w' % r.choice(['i4', 'f8', 'f4']), 1),
                     ('f8 / nullif(sum(f8) OVER w, 0)', 1)]
        if r.random() < 0.015:
            opts = [(r.choice(['ntile(0) OVER w', 'nth_value(i4, 0) OVER w', 'sum(%s) OVER w' % error_expr(r),
                               'count(%s) OVER w' % error_expr(r)]), 1)]
        return r.choices([o for o, _ in opts], [w for _, w in opts])[0]

    # -- aggregates that sort (GpuAgg's) and others, with or without GROUP BY
    def agg(self, r):
        ng = r.choices([0, 1, 2], [3, 6, 2])[0]
        gkeys = [low_card_expr(r) for _ in range(ng)]
        if ng and r.random() < 0.1:
            gkeys[0] = r.choice([E('i8', 'exact', 'int'), E('id % 50000', 'exact', 'int')])
        aggs = []   # (sql, kind for canon or None)
        if r.random() < 0.6:
            # all over one column: GpuAgg's
            x, xkind, xtyp = self._agg_col(r)
            for _ in range(r.choice([1, 2, 3, 4])):
                aggs.append(self._sorting_agg(r, x, xkind, xtyp))
        else:
            for _ in range(r.choice([1, 2, 3, 4])):
                if r.random() < 0.5:
                    x, xkind, xtyp = self._agg_col(r)
                    aggs.append(self._sorting_agg(r, x, xkind, xtyp))
                else:
                    aggs.append(r.choice([
                        ('count(*)', None), ('sum(price * qty)', None), ('avg(i4)', None), ('sum(n)', None),
                        ('max(t)', None), ('min(d)', None), ('bool_and(b)', None), ('sum(iv)', None),
                        ('count(*) FILTER (WHERE b)', None), ('min(f8)', 'float'), ('max(iv)', 'interval'),
                        ('sum(f8 ORDER BY id)', None), ('count(DISTINCT (i2, grp))', None),
                        ('string_agg(DISTINCT grp, \',\' ORDER BY grp)', None), ('avg(n)', None),
                        ('sum(i8)', None), ('stddev(i4)', None), ('max(tz)', None), ('min(ts)', None)]))
        if r.random() < 0.03:
            aggs.append((r.choice(['percentile_cont(1.5) WITHIN GROUP (ORDER BY f8)', 'sum(%s)' % error_expr(r),
                                   'percentile_disc(-0.5) WITHIN GROUP (ORDER BY i4)']), None))
        sel = ['%s AS k%d' % (k.sql, j + 1) for j, k in enumerate(gkeys)]
        sel += ['%s AS a%d' % (a, j + 1) for j, (a, _) in enumerate(aggs)]
        cc = {j: k.kind for j, k in enumerate(gkeys) if k.kind != 'exact'}
        for j, (a, kind) in enumerate(aggs):
            if kind:
                cc[ng + j] = kind
        sql = 'SELECT %s FROM rd%s' % (', '.join(sel), where_clause(r, self.rows))
        if not ng:
            return Q('', sql, [], cc)
        grouping = ', '.join('k%d' % (j + 1) for j in range(ng))
        if r.random() < 0.06 and ng == 2:
            grouping = 'ROLLUP (%s)' % ', '.join(k.sql for k in gkeys)
        sql += ' GROUP BY ' + grouping
        if r.random() < 0.2:
            sql += ' HAVING count(*) > %d' % r.choice([1, 5, 20])
        order = list(range(ng))
        r.shuffle(order)
        keyspec = [(j, gkeys[j].kind) for j in order]
        ostr = ', '.join('k%d%s' % (j + 1, direction(r)) for j in order)
        if r.random() < 0.15 and not aggs[0][1] and aggs[0][0].startswith(('count', 'sum', 'avg')):
            ostr = 'a1 DESC, ' + ostr
            keyspec = [(ng, 'numeric')] + keyspec
            if r.random() < 0.5:
                ostr += ' LIMIT 10'
        sql += ' ORDER BY ' + ostr
        return Q('', sql, keyspec, cc)

    def _agg_col(self, r):
        """(column, its kind, type class) for the sorting aggregates"""
        return r.choice([('i4', 'exact', 'int'), ('i2', 'exact', 'int'), ('i8', 'exact', 'int'),
                         ('qty', 'exact', 'int'), ('f8', 'float', 'float'), ('f4', 'float', 'float'),
                         ('n', 'numeric', 'numeric'), ('price', 'numeric', 'numeric'),
                         ('iv', 'interval', 'interval'), ('ivj', 'interval', 'interval'),
                         ('d', 'exact', 'date'), ('ts', 'exact', 'ts'),
                         ('tc', 'exact', 'text'), ('cat', 'exact', 'text'), ('grp', 'exact', 'text'),
                         ('ticu', 'exact', 'text'), ('tsv', 'exact', 'text'),
                         ('tc COLLATE "%s"' % _coll(r), 'exact', 'text'),
                         ('cat COLLATE "%s"' % _coll(r), 'exact', 'text'), ('vc', 'exact', 'text'),
                         ('u', 'exact', 'uuid'), ('by', 'exact', 'bytea')])

    def _sorting_agg(self, r, x, xkind, xtyp):
        """(aggregate over x, canon kind of its result or None)"""
        rep = None if xkind == 'exact' else xkind          # one of several equal values
        opts = [('count(DISTINCT %s)' % x, None, 4), ('count(%s)' % x, None, 1), ('count(*)', None, 1),
                ('mode() WITHIN GROUP (ORDER BY %s)' % x, rep, 2),
                ('percentile_disc(%s) WITHIN GROUP (ORDER BY %s)' % (r.choice(['0', '0.25', '0.5', '0.9', '1']), x),
                 rep, 3),
                ('percentile_disc(ARRAY[0.1, 0.5, 0.5, 1]) WITHIN GROUP (ORDER BY %s)' % x,
                 rep and rep + '[]', 1)]
        if xtyp == 'int':
            opts += [('sum(DISTINCT %s)' % x, None, 2), ('avg(DISTINCT %s)' % x, None, 2)]
        # percentile_cont interpolates between the values at two places:
        # between '1 mon' and '30 days' (equal) it makes values that differ
        # with their order, which the sort leaves open; ivj has one
        # representation of each value (justify_interval)
        if xtyp in ('int', 'float') or x == 'ivj':
            pk = 'interval' if xtyp == 'interval' else 'float'
            opts += [('percentile_cont(%s) WITHIN GROUP (ORDER BY %s)' % (r.choice(['0', '0.1', '0.5', '0.75', '1']), x),
                      pk if rep else None, 3),
                     ('percentile_cont(ARRAY[0, 0.33, 0.5, 1]) WITHIN GROUP (ORDER BY %s)' % x,
                      (pk + '[]') if rep else None, 1)]
        if xtyp == 'text':
            opts += [("string_agg(%s, ',' ORDER BY %s)" % (x, r.choice([x, 'id', x + ' DESC'])), None, 3)]
        if xtyp == 'text' or (xtyp == 'int' and r.random() < 0.5):
            opts += [('array_agg(%s ORDER BY %s)' % (x, r.choice([x, 'id'])), None, 2)]
        elif xtyp not in ('text', 'int'):
            opts += [('array_agg(%s ORDER BY id)' % x, None, 1)]
        a = r.choices(opts, [w for _, _, w in opts])
        return a[0][0], a[0][1]

    # -- GROUP BY with plain aggregates (GroupAggregate over a sort)
    def group(self, r):
        ng = r.choice([1, 1, 2, 3])
        gkeys = [low_card_expr(r) if r.random() < 0.7 else key_expr(r) for _ in range(ng)]
        aggs = r.sample(['count(*)', 'sum(i4)', 'sum(price * qty)', 'avg(n)', 'min(t)', 'max(tc)', 'count(f8)',
                         'sum(i8)', 'min(d)', 'max(ts)', 'bool_or(b)', 'sum(m)', 'max(u::text)'], r.choice([1, 2, 3]))
        if r.random() < 0.2:
            # a window over the groups
            aggs.append(r.choice(['rank() OVER (ORDER BY count(*) DESC)',
                                  'row_number() OVER (ORDER BY %s)' % ', '.join(k.sql for k in gkeys),
                                  'sum(count(*)) OVER (ORDER BY %s)' % ', '.join(k.sql for k in gkeys)]))
        sel = ['%s AS k%d' % (k.sql, j + 1) for j, k in enumerate(gkeys)] + aggs
        cc = {j: k.kind for j, k in enumerate(gkeys) if k.kind != 'exact'}
        order = list(range(ng))
        r.shuffle(order)
        sql = 'SELECT %s FROM rd%s GROUP BY %s ORDER BY %s' % (
            ', '.join(sel), where_clause(r, self.rows), ', '.join('k%d' % (j + 1) for j in range(ng)),
            ', '.join('k%d%s' % (j + 1, direction(r)) for j in order))
        if r.random() < 0.2:
            sql += ' LIMIT %d' % r.choice([1, 10, 100])
        return Q('', sql, [(j, gkeys[j].kind) for j in order], cc)

    # -- merge joins
    JOINS = [  # (a side, b side, kind, fan-out of a row of rd, expected)
        ('a.i4 %% 1000', 'b.k', 'exact', 2), ('a.i2', 'b.i2', 'exact', 20), ('a.cat', 'b.cat', 'exact', 7),
        ('a.cat COLLATE "%(c)s"', 'b.cat', 'exact', 7), ('a.grp', 'b.grp', 'exact', 100),
        ('a.grp COLLATE "%(c)s"', 'b.grp', 'exact', 100), ('a.t', 'b.t', 'exact', 5),
        ('a.t COLLATE "%(c)s"', 'b.t', 'exact', 5), ('lower(a.tc)', 'lower(b.t)', 'exact', 5),
        ('a.d', 'b.d', 'exact', 1), ('a.f8', 'b.x', 'float', 3), ('a.n', 'b.n', 'numeric', 1),
        ('a.iv', 'b.iv', 'interval', 60), ('a.ts', 'b.ts', 'exact', 1), ('a.tsv', 'b.t', 'exact', 5),
        ('a.ticu', 'b.t', 'exact', 5), ('a.grp COLLATE rd_ci', 'b.grp', 'nd:rd_ci', 150),
        ('a.cat COLLATE rd_ai', 'b.cat', 'nd:rd_ai', 7), ('a.t COLLATE rd_ci', 'b.t', 'nd:rd_ci', 8)]

    def join(self, r):
        ja, jb, kind, fan = r.choice(self.JOINS)
        ja = ja % {'c': _coll(r)}
        cond = '%s = %s' % (ja, jb)
        if r.random() < 0.2:
            ja2, jb2, _, _ = r.choice(self.JOINS)
            cond += ' AND %s = %s' % (ja2 % {'c': _coll(r)}, jb2)
        jt = r.choices(['JOIN', 'LEFT JOIN', 'RIGHT JOIN', 'FULL JOIN'], [5, 2, 1, 2])[0]
        m = max(1, math.ceil(self.rows * fan / 15000))
        a = 'rd' if m == 1 and r.random() < 0.5 else '(SELECT * FROM rd WHERE id %% %d = %d)' % (m, r.randrange(m))
        if r.random() < 0.25:
            # aggregated per join key
            sql = ('SELECT %s AS k1, count(*) AS c, count(b.id) AS cb, sum(a.i4) AS s, min(b.cat) AS mc '
                   'FROM %s a %s rd2 b ON %s GROUP BY 1 ORDER BY 1%s' % (ja, a, jt, cond, direction(r)))
            return Q('', sql, [(0, kind)], {0: kind} if kind != 'exact' else {})
        pay = ', '.join(['a.%s' % c for c in r.sample(['t', 'tc', 'cat', 'i4', 'f8', 'n', 'iv', 'ts'], 2)] +
                        ['b.%s' % c for c in r.sample(['t', 'cat', 'x', 'n', 'iv', 'ts', 'grp'], 2)])
        style = r.random()
        if style < 0.5:
            keys = [(ja, kind), ('a.id', 'exact'), ('b.id', 'exact')]
        elif style < 0.8:
            keys = [(ja, kind)]
        else:
            keys = [('a.id', 'exact'), ('b.id', 'exact')]
        sel = ['%s AS k%d' % (e, j + 1) for j, (e, _) in enumerate(keys)]
        sql = 'SELECT %s, a.id AS aid, b.id AS bid, %s FROM %s a %s rd2 b ON %s ORDER BY %s' % (
            ', '.join(sel), pay, a, jt, cond, ', '.join('k%d%s' % (j + 1, direction(r)) for j in range(len(keys))))
        return Q('', sql, [(j, k) for j, (_, k) in enumerate(keys)])

    # -- set operations
    SETCOLS = [  # (rd's, rd2's, kind)
        ('grp', 'grp', 'exact'), ('cat', 'cat', 'exact'), ('i2', 'i2', 'exact'), ('d', 'd', 'exact'),
        ('f8', 'x', 'float'), ('iv', 'iv', 'interval'), ('left(t, 12)', 'left(t, 12)', 'exact'),
        ('tc', 't COLLATE "C"', 'exact'), ('grp COLLATE "%(c)s"', 'grp', 'exact'), ('cat COLLATE "%(c)s"', 'cat', 'exact'),
        ('date_trunc(\'day\', ts)', 'date_trunc(\'day\', ts)', 'exact'), ('round(n)', 'round(n)', 'numeric')]

    def setop(self, r):
        cols = r.sample(self.SETCOLS, r.choice([1, 2, 2, 3]))
        c = _coll(r)
        left = ', '.join('%s AS k%d' % (a % {'c': c}, j + 1) for j, (a, _, _) in enumerate(cols))
        ra = ', '.join(a % {'c': c} for a, _, _ in cols)
        rb = ', '.join(b for _, b, _ in cols)
        op = r.choice(['UNION', 'UNION ALL', 'INTERSECT', 'INTERSECT ALL', 'EXCEPT', 'EXCEPT ALL'])
        w1 = where_clause(r, self.rows, allow_none=False)
        right = ('SELECT %s FROM rd%s' % (ra, where_clause(r, self.rows, allow_none=False))
                 if r.random() < 0.6 else 'SELECT %s FROM rd2%s' % (rb, r.choice(['', ' WHERE id % 2 = 0'])))
        sql = 'SELECT %s FROM rd%s %s %s' % (left, w1, op, right)
        if r.random() < 0.2:
            op2 = r.choice(['UNION', 'EXCEPT', 'INTERSECT'])
            sql = '(%s) %s SELECT %s FROM rd2 WHERE id %% 3 = 0' % (sql, op2, rb)
        # which of several equal values a set operation keeps is unspecified
        # (and under UNION ALL which a LIMIT keeps)
        cc = {j: k for j, (_, _, k) in enumerate(cols) if k != 'exact'}
        if r.random() < 0.85:
            order = list(range(len(cols)))
            r.shuffle(order)
            sql += ' ORDER BY ' + ', '.join('k%d%s' % (j + 1, direction(r)) for j in order)
            keyspec = [(j, cols[j][2]) for j in order]
            if r.random() < 0.15:
                sql += ' LIMIT 50'
        else:
            keyspec = []
        return Q('', sql, keyspec, cc)

    # -- subqueries with outer references, LATERAL, IN
    def subquery(self, r):
        m = max(1, self.rows // 150)
        outer = '(SELECT * FROM rd WHERE id %% %d = %d)' % (m, r.randrange(m))
        ocol, icol = r.choice([('a.grp', 'b.grp'), ('a.cat', 'b.cat'), ('a.i2', 'b.i2'),
                               ('a.grp COLLATE "%s"' % _coll(r), 'b.grp'), ('a.d', 'b.d')])
        okey = r.choice(['b.x', 'b.t', 'b.n', 'b.ts', 'b.iv', 'b.cat COLLATE "%s"' % _coll(r), 'b.t COLLATE "%s"' % _coll(r)])
        d = direction(r)
        kind = r.random()
        if kind < 0.35:
            sql = ('SELECT a.id AS k1, a.grp, (SELECT b.%s FROM rd2 b WHERE %s = %s%s ORDER BY %s%s, b.id LIMIT 1) AS s '
                   'FROM %s a ORDER BY k1' % (r.choice(['t', 'id', 'x', 'cat']), icol, ocol,
                                              r.choice(['', ' AND b.k > a.i2 + 50']), okey, d, outer))
            return Q('', sql, [(0, 'exact')])
        if kind < 0.6:
            sql = ('SELECT a.id AS k1, l.id AS k2, l.c FROM %s a CROSS JOIN LATERAL (SELECT b.id, b.cat AS c, %s AS o '
                   'FROM rd2 b WHERE %s = %s ORDER BY o%s, b.id LIMIT %d) l ORDER BY k1, k2'
                   % (outer, okey, icol, ocol, d, r.choice([1, 3, 10])))
            return Q('', sql, [(0, 'exact'), (1, 'exact')])
        if kind < 0.8:
            sql = ('SELECT a.id AS k1, ARRAY(SELECT b.id FROM rd2 b WHERE %s = %s ORDER BY %s%s, b.id) AS arr '
                   'FROM %s a ORDER BY k1' % (icol, ocol, okey, d, outer))
            return Q('', sql, [(0, 'exact')])
        e = low_card_expr(r, 'a.')
        sql = ('SELECT %s AS k1, a.id AS k2, a.t FROM rd a WHERE a.%s IN (SELECT b.%s FROM rd2 b WHERE b.id %% %d = 0) '
               'ORDER BY k1%s, k2' % (e.sql, r.choice(['cat', 'grp', 't']), r.choice(['cat', 'grp', 't']),
                                      r.choice([3, 7, 50]), direction(r)))
        return Q('', sql, [(0, e.kind), (1, 'exact')])

    # -- the partitioned table (rd's rows): Merge Append over the
    # partitions' sorts, partitionwise aggregates
    def partitioned(self, r):
        g = r.choice([Gen.order_by, Gen.order_by, Gen.window, Gen.agg, Gen.distinct, Gen.group])
        q = g(self, r)
        q.sql = re.sub(r' FROM rd(?=[ )]|$)', ' FROM rdp', q.sql).replace('rd.*', 'rdp.*')
        return q

    # -- a CTE of a window over an ordered subquery, ordered again
    def nested(self, r):
        k = key_expr(r)
        sql = ('WITH s AS (SELECT id, grp, %s AS k, i4, n FROM rd%s ORDER BY k, id) '
               'SELECT grp AS k1, k AS k2, id AS k3, sum(i4) OVER (PARTITION BY grp ORDER BY k, id '
               'ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS s1, '
               'rank() OVER (PARTITION BY grp ORDER BY k) AS r1 FROM s ORDER BY k1%s, k2%s, k3'
               % (k.sql, where_clause(r, self.rows), direction(r), direction(r)))
        return Q('', sql, [(0, 'exact'), (1, k.kind), (2, 'exact')])


SHAPES = collections.OrderedDict([
    ('order_by', (Gen.order_by, 26)), ('distinct', (Gen.distinct, 7)), ('distinct_on', (Gen.distinct_on, 6)),
    ('window', (Gen.window, 22)), ('agg', (Gen.agg, 17)), ('group', (Gen.group, 6)), ('join', (Gen.join, 7)),
    ('setop', (Gen.setop, 6)), ('subquery', (Gen.subquery, 5)), ('partitioned', (Gen.partitioned, 3)),
    ('nested', (Gen.nested, 2)), ('cursor', (Gen.cursor, 3))])


# ---------------------------------------------------------------------------
# running and comparing

class Lost(Exception):
    pass


class Runner:
    def __init__(self, timeout_s):
        self.timeout_s = timeout_s
        self.conn = None
        self.connect()

    def connect(self):
        deadline = time.time() + 120
        while True:
            try:
                self.conn = psycopg2.connect('')
                self.conn.autocommit = True
                self.cur = self.conn.cursor()
                return
            except psycopg2.OperationalError:
                if time.time() > deadline:
                    raise
                time.sleep(1)

    def setup(self, q, gpusort):
        sets = ['RESET ALL', "SET statement_timeout = '%ds'" % self.timeout_s]
        sets += ['SET %s = %s' % (n, v) for n, v in q.settings]
        sets.append('SET gpusort.enabled = %s' % ('on' if gpusort else 'off'))
        self.cur.execute('; '.join(sets))

    def run(self, q, gpusort):
        """('ok', rows) or ('error', sqlstate, message)"""
        try:
            self.setup(q, gpusort)
            if q.cursor:
                return ('ok', self.run_cursor(q))
            self.cur.execute(q.sql)
            return ('ok', self.cur.fetchall())
        except psycopg2.Error as e:
            if e.pgcode is None or self.conn.closed:
                self.reconnect()
                return ('error', 'lost', 'connection lost: %s' % str(e).strip().splitlines()[0])
            return ('error', e.pgcode, e.diag.message_primary or str(e).strip())

    def run_cursor(self, q):
        """the rows of each FETCH, one after the other"""
        rows = []
        self.cur.execute('BEGIN')
        try:
            self.cur.execute('DECLARE c SCROLL CURSOR FOR ' + q.sql)
            for cmd in q.cursor:
                self.cur.execute(cmd)
                if cmd.startswith('FETCH'):
                    rows += self.cur.fetchall()
        except psycopg2.Error:
            if not self.conn.closed:
                self.cur.execute('ROLLBACK')
            raise
        self.cur.execute('COMMIT')
        return rows

    def reconnect(self):
        try:
            self.conn.close()
        except Exception:
            pass
        time.sleep(2)
        self.connect()

    def plan(self, q, analyze=False):
        """(ms of planning + execution or None, custom scan providers)"""
        try:
            self.setup(q, True)
            self.cur.execute('EXPLAIN (%sFORMAT JSON) %s' % ('ANALYZE, TIMING OFF, ' if analyze else '', q.sql))
            j = self.cur.fetchone()[0]
            j = json.loads(j) if isinstance(j, str) else j
        except psycopg2.Error as e:
            if e.pgcode is None or self.conn.closed:
                self.reconnect()
            return None, set()
        nodes = set()

        def walk(n):
            if n.get('Node Type') == 'Custom Scan':
                nodes.add(n.get('Custom Plan Provider', '?'))
            for c in n.get('Plans', []):
                walk(c)
        walk(j[0]['Plan'])
        return None, nodes

    def classes(self, coll, values):
        """{value: the first of its class in byte order} under collation coll"""
        self.cur.execute('RESET ALL')
        self.cur.execute('SELECT array_agg(v ORDER BY v COLLATE "C") FROM unnest(%%s::text[]) v '
                         'GROUP BY v COLLATE %s' % coll, (sorted(values),))
        out = {}
        for (arr,) in self.cur.fetchall():
            els = parse_array(arr)
            for v in els:
                out[v] = els[0]
        return out

    def time(self, q, gpusort):
        """planning + execution ms by EXPLAIN ANALYZE, or None on error"""
        try:
            self.setup(q, gpusort)
            self.cur.execute('EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) ' + q.sql)
            j = self.cur.fetchone()[0]
            j = json.loads(j) if isinstance(j, str) else j
            return j[0]['Planning Time'] + j[0]['Execution Time']
        except psycopg2.Error as e:
            if e.pgcode is None or self.conn.closed:
                self.reconnect()
            return None


def short(v, n=160):
    if v is None:
        return 'NULL'
    v = str(v)
    return v if len(v) <= n else '%s...(%d chars)' % (v[:n], len(v))


def fmt_row(row):
    return '(' + ', '.join(short(v, 80) for v in row) + ')'


def compare(q, g, s, classes=None):
    """None if the results agree, else a description of the first difference.
    classes(collation, values): {value: its class} under a nondeterministic
    collation (asked of the server)."""
    if g[0] == 'error' or s[0] == 'error':
        if g[0] == 'error' and s[0] == 'error' and g[1:] == s[1:]:
            return None
        desc = lambda x: ('error %s: %s' % (x[1], x[2])) if x[0] == 'error' else 'no error (%d rows)' % len(x[1])
        return '  gpusort: %s\n  stock:   %s' % (desc(g), desc(s))
    gr, sr = g[1], s[1]
    if gr == sr:
        return None
    cc = q.canon_cols
    nd = {}     # collation: {value: class}
    for j, k in list(q.keys) + list(cc.items()):
        if k.startswith('nd:'):
            vals = nd.setdefault(k[3:], set())
            vals.update(row[j] for row in gr if row[j] is not None)
            vals.update(row[j] for row in sr if row[j] is not None)
    for coll, vals in nd.items():
        nd[coll] = classes(coll, vals)

    def canon_v(k, v):
        if v is not None and k.startswith('nd:'):
            return nd[k[3:]][v]
        return canon(k, v)

    def key(row):
        return tuple(canon_v(k, row[j]) for j, k in q.keys)

    def crow(row):
        if not cc:
            return row
        return tuple(canon_v(cc[j], v) if j in cc else v for j, v in enumerate(row))

    out = []
    if len(gr) != len(sr):
        out.append('  row counts: gpusort %d, stock %d' % (len(gr), len(sr)))
    n = min(len(gr), len(sr))
    for i in range(n):
        if key(gr[i]) != key(sr[i]):
            out.append('  first differing key at row %d:\n    gpusort: %s\n    stock:   %s'
                       % (i + 1, fmt_row(gr[i]), fmt_row(sr[i])))
            return '\n'.join(out)
    if len(gr) != len(sr):
        longer, name = (gr, 'gpusort') if len(gr) > n else (sr, 'stock')
        out.append('  %s has more rows; row %d: %s' % (name, n + 1, fmt_row(longer[n])))
        return '\n'.join(out)
    i = 0
    while i < n:
        j = i + 1
        k = key(gr[i])
        while j < n and key(gr[j]) == k:
            j += 1
        cg = collections.Counter(crow(x) for x in gr[i:j])
        cs = collections.Counter(crow(x) for x in sr[i:j])
        if cg != cs:
            og = next(x for x in gr[i:j] if (cg - cs)[crow(x)] > 0)
            os_ = next(x for x in sr[i:j] if (cs - cg)[crow(x)] > 0)
            out.append('  rows %d-%d (equal keys) differ as multisets; first row only in each:\n'
                       '    gpusort: %s\n    stock:   %s' % (i + 1, j, fmt_row(og), fmt_row(os_)))
            return '\n'.join(out)
        i = j
    return None


def repro(q):
    lines = ['SET %s = %s;' % (n, v) for n, v in q.settings]
    lines.append('SET gpusort.enabled = on;  -- and off')
    if q.cursor:
        lines += ['BEGIN;', 'DECLARE c SCROLL CURSOR FOR ' + q.sql + ';'] + [c + ';' for c in q.cursor] + ['COMMIT;']
    else:
        lines.append(q.sql + ';')
    return '\n'.join('    ' + x for x in lines)


def pct(xs, p):
    if not xs:
        return float('nan')
    xs = sorted(xs)
    k = (len(xs) - 1) * p / 100.0
    f = math.floor(k)
    c = min(f + 1, len(xs) - 1)
    return xs[f] + (xs[c] - xs[f]) * (k - f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--queries', type=int, default=300)
    ap.add_argument('--rows', type=int, default=10000)
    ap.add_argument('--data-seed', type=int, default=1)
    ap.add_argument('--timing', action='store_true')
    ap.add_argument('--reps', type=int, default=1, help='timed runs per side (best of), --timing')
    ap.add_argument('--report', help='write a report (markdown) here')
    ap.add_argument('--csv', help='--timing: write every query\'s times here')
    ap.add_argument('--only', help='run only these query numbers (comma-separated)')
    ap.add_argument('--first', type=int, default=1, help='start at this query number')
    ap.add_argument('--no-load', action='store_true', help='use the tables as they are')
    ap.add_argument('--timeout', type=int, default=120, help='statement_timeout, seconds')
    ap.add_argument('--max-print', type=int, default=30, help='print at most this many failures')
    ap.add_argument('--verbose', action='store_true')
    ap.add_argument('--bar', default='1.5,20', metavar='RATIO,MS',
                    help='--timing: a query over RATIO x stock + MS is timed 3 more times a side and judged '
                         'on the medians (default 1.5,20; issue 39: 1.2,0 at 10^6 rows on the GPU)')
    ap.add_argument('--no-compare', action='store_true',
                    help='--timing only: time each query without fetching and comparing its results (large '
                         'tables on a device call; the comparison is the CI\'s and test/gpu/run\'s)')
    ap.add_argument('--stop-after', type=float, metavar='SECONDS',
                    help='start no query after this many seconds, and report those that ran')
    a = ap.parse_args()
    if a.no_compare and not a.timing:
        ap.error('--no-compare times queries instead of comparing them: it needs --timing')
    try:
        bar = tuple(float(x) for x in a.bar.split(','))
        if len(bar) != 2:
            raise ValueError
    except ValueError:
        ap.error('--bar takes RATIO,MS (e.g. 1.2,0)')

    t_start = time.time()
    run = Runner(a.timeout)
    cur = run.cur
    try:
        cur.execute('SHOW gpusort.min_rows')
    except psycopg2.Error:
        sys.exit('randdiff: gpusort is not loaded in this session (shared_preload_libraries)')
    cur.execute('SELECT collname FROM pg_collation')
    have = {x[0] for x in cur.fetchall()}
    missing = [c for c in COLLATIONS if c not in have]
    if missing:
        sys.exit('randdiff: collations missing: %s (test/lib.sh gs_ensure_locales before initdb)' % ', '.join(missing))
    cur.execute("SELECT datcollate FROM pg_database WHERE datname = current_database()")
    dbcoll = cur.fetchone()[0]
    if not a.no_load:
        t0 = time.time()
        if load_data(run.conn, a.rows, a.data_seed):
            print('randdiff: loaded %d rows (seed %d) in %.1f s' % (a.rows, a.data_seed, time.time() - t0))
    cur.execute('SELECT count(*) FROM rd')
    rows = int(cur.fetchone()[0])
    cur.execute('SELECT version()')
    version = cur.fetchone()[0]
    print('randdiff: seed %d, %d queries, %d rows, database collation %s, %s%s'
          % (a.seed, a.queries, rows, dbcoll, version.split(' on ')[0],
             '' if DRIVER == 'psycopg2' else ', via ' + DRIVER))
    sys.stdout.flush()

    gen = Gen(rows)
    if a.only:
        numbers = [int(x) for x in a.only.split(',')]
    else:
        numbers = list(range(a.first, a.first + a.queries))
    passed = failed = 0
    both_err = collections.Counter()
    err_msgs = collections.Counter()
    shapes = collections.Counter()
    shape_nodes = collections.Counter()
    nodes_total = collections.Counter()
    failures = []
    timings = []   # (i, q, g_ms, s_ms, rerun)
    spent = []     # (seconds both sides took, i, shape)
    stock_bug = collections.Counter()   # stock's internal errors: message -> queries
    for n, i in enumerate(numbers):
        if a.stop_after is not None and time.time() - t_start > a.stop_after:
            print('randdiff: stopped after %.0f s (--stop-after), before query %d' % (time.time() - t_start, i))
            break
        q = gen.query(a.seed, i)
        shapes[q.shape] += 1
        if a.verbose:
            print('-- query %d (%s)\n%s' % (i, q.shape, repro(q)))
        _, nodes = run.plan(q)
        for x in nodes:
            nodes_total[x] += 1
        if nodes:
            shape_nodes[q.shape] += 1
        if a.no_compare:
            t0 = time.time()
            t = time_query(run, q, i, a.reps, bar)
            if t[2] is not None:
                timings.append(t)
            spent.append((time.time() - t0, i, q.shape))
            continue
        t0 = time.time()
        # alternate which side runs first
        wall = {}
        for side in ((True, False) if i % 2 else (False, True)):
            t1 = time.time()
            res = run.run(q, side)
            wall[side] = (time.time() - t1) * 1000
            if side:
                g = res
            else:
                s = res
        if s[0] == 'error' and s[1] == 'XX000' and g[0] == 'ok':
            # stock's own internal error (PostgreSQL 15's WindowAgg raises
            # "unexpected end of tuplestore" for some frames once its
            # tuplestore spills at a small work_mem): gpusort is compared
            # with stock at a work_mem that keeps it in memory instead
            stock_bug[s[2]] += 1
            q2 = copy.copy(q)
            q2.settings = list(q.settings) + [('work_mem', "'1GB'")]
            s = run.run(q2, False)
        diff = compare(q, g, s, run.classes)
        if diff is None:
            passed += 1
            if g[0] == 'error':
                both_err[g[1]] += 1
                err_msgs[(g[1], re.sub(r'\d+', 'N', g[2]))] += 1
        else:
            failed += 1
            failures.append((i, q, diff))
            if failed <= a.max_print:
                print('FAILED query %d (%s), seed %d:\n%s\n%s' % (i, q.shape, a.seed, repro(q), diff))
                sys.stdout.flush()
        spent.append((time.time() - t0, i, q.shape))
        if a.verbose:
            print('   %s in %.2f s, nodes %s' % ('ok' if diff is None else 'FAILED', time.time() - t0,
                                                 ','.join(sorted(nodes)) or '-'))
        if a.timing and diff is None and g[0] == 'ok':
            timings.append(time_query(run, q, i, a.reps, bar))
        elif a.timing and g[0] == 'error' and g[1] == '57014' and s[0] == 'ok':
            # gpusort ran past statement_timeout, stock did not: its time
            # is at least the timeout (stock's: its run, rows sent included)
            timings.append((i, q, a.timeout * 1000.0, wall[False], 'timeout'))
        if (n + 1) % 100 == 0 and not a.verbose:
            print('  ... %d queries, %d failed, %.0f s' % (n + 1, failed, time.time() - t_start))
            sys.stdout.flush()

    elapsed = time.time() - t_start
    total = len(spent) if a.no_compare else passed + failed
    lines = []
    if a.no_compare:
        lines.append('results not compared (--no-compare): %d queries timed, %d raised an error on a side '
                     'and were left out' % (len(timings), len(spent) - len(timings)))
    lines.append('queries by shape: ' + ', '.join('%s %d' % (k, v) for k, v in shapes.most_common()))
    lines.append('plans with a gpusort node: %d of %d (%s)' % (
        sum(shape_nodes.values()), total, ', '.join('%s %d' % kv for kv in nodes_total.most_common())))
    if both_err:
        lines.append('both raised the same error: %d (%s)' % (
            sum(both_err.values()), ', '.join('%s %d' % kv for kv in both_err.most_common())))
        lines += ['  %d x %s %s' % (v, c, m[:100]) for (c, m), v in err_msgs.most_common(8)]
    if stock_bug:
        lines.append('stock raised an internal error (XX000) where gpusort did not, compared with stock at '
                     'work_mem 1GB instead: %d (%s)' % (sum(stock_bug.values()), '; '.join(
                         '%d x %s' % (v, m[:100]) for m, v in stock_bug.most_common())))
    lines.append('elapsed: %.0f s; slowest: %s' % (elapsed, ', '.join(
        'query %d (%s) %.1f s' % (i, sh, t) for t, i, sh in sorted(spent, reverse=True)[:5])))
    for x in lines:
        print(x)
    report = ['# randdiff: seed %d, %d queries, %d rows' % (a.seed, total, rows), '',
              '    ' + version, '    database collation %s' % dbcoll, '']
    report += ['- ' + x for x in lines] + ['']
    if timings:
        report += timing_report(timings, bar)
        if a.csv:
            write_csv(a.csv, timings)
    report += ['## Correctness', '', '%d passed, %d failed' % (passed, failed), '']
    for i, q, diff in failures:
        report += ['### query %d (%s)' % (i, q.shape), '', '```', repro(q), diff, '```', '']
    if a.report:
        os.makedirs(os.path.dirname(os.path.abspath(a.report)), exist_ok=True)
        with open(a.report, 'w') as f:
            f.write('\n'.join(report) + '\n')
    if sum(shape_nodes.values()) == 0 and total >= 20:
        print('randdiff: no plan had a gpusort node: is gpusort loaded?')
        failed += 1
    print('randdiff: %d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


# ---------------------------------------------------------------------------
# timing (--timing)

def over_bar(g, s, bar):
    return g > bar[0] * s + bar[1]


def time_query(run, q, i, reps, bar):
    gs, ss = [], []
    for k in range(reps):
        if (i + k) % 2:
            gs.append(run.time(q, True))
            ss.append(run.time(q, False))
        else:
            ss.append(run.time(q, False))
            gs.append(run.time(q, True))
    if None in gs or None in ss:
        return (i, q, None, None, False)
    g, s = min(gs), min(ss)
    rerun = False
    if over_bar(g, s, bar):
        rerun = True
        gs, ss = [], []
        for k in range(3):
            gs.append(run.time(q, True))
            ss.append(run.time(q, False))
        if None in gs or None in ss:
            return (i, q, None, None, True)
        g, s = statistics.median(gs), statistics.median(ss)
    return (i, q, g, s, rerun)


# the column of 1-10 kB strings with long shared prefixes, named anywhere
# in a query (sorted or not)
_LONG_TEXT = re.compile(r'(?<![\w.])(?:[ab]\.)?t(?![\w(])')


def write_csv(path, timings):
    import csv
    with open(path, 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(['query', 'shape', 'gpusort_ms', 'stock_ms', 'ratio', 'rerun', 'names_t', 'sql'])
        for i, q, g, s, rerun in timings:
            w.writerow([i, q.shape, '' if g is None else '%.2f' % g, '' if s is None else '%.2f' % s,
                        '' if g is None else '%.3f' % (g / max(s, 0.001)),
                        'timeout' if rerun == 'timeout' else 'yes' if rerun else '',
                        'yes' if _LONG_TEXT.search(q.sql) else '', q.sql])


def timing_report(timings, bar):
    ok = [t for t in timings if t[2] is not None]
    ratios = [t[2] / max(t[3], 0.001) for t in ok]
    nolong = [t[2] / max(t[3], 0.001) for t in ok if not _LONG_TEXT.search(t[1].sql)]
    nolong_slow = [t for t in ok if not _LONG_TEXT.search(t[1].sql) and over_bar(t[2], t[3], bar)]
    slow = [t for t in ok if over_bar(t[2], t[3], bar)]
    bar_text = '%gx stock + %g ms' % bar
    over12 = [r for r in ratios if r > 1.2]
    g_sum = sum(t[2] for t in ok)
    s_sum = sum(t[3] for t in ok)
    geo = math.exp(sum(math.log(max(r, 1e-6)) for r in ratios) / len(ratios)) if ratios else float('nan')
    out = ['## Timing: gpusort / stock (planning + execution, EXPLAIN ANALYZE, TIMING OFF)', '',
           '%d queries timed (%d rerun 3 times: gpusort > %s at first; %d where gpusort ran past '
           'statement_timeout and stock did not, counted at the timeout)' % (
               len(ok), sum(1 for t in ok if t[4] is True), bar_text, sum(1 for t in ok if t[4] == 'timeout')), '',
           '| p1 | p10 | p25 | p50 | p75 | p90 | p95 | p99 | max | geomean |',
           '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
           '| ' + ' | '.join('%.2f' % pct(ratios, p) for p in (1, 10, 25, 50, 75, 90, 95, 99, 100))
           + ' | %.2f |' % geo,
           '', 'The %d queries that do not name the column t (its 1-10 kB strings):' % len(nolong), '',
           '| p1 | p10 | p25 | p50 | p75 | p90 | p95 | p99 | max | geomean |',
           '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
           '| ' + ' | '.join('%.2f' % pct(nolong, p) for p in (1, 10, 25, 50, 75, 90, 95, 99, 100))
           + ' | %.2f |' % (math.exp(sum(math.log(max(r, 1e-6)) for r in nolong) / len(nolong))
                            if nolong else float('nan')), '',
           '- over 1.2x: %d of %d' % (len(over12), len(ok)),
           '- over %s (medians of 3): %d (%d of them without the column t)' % (bar_text, len(slow), len(nolong_slow)),
           '- total: gpusort %.0f ms, stock %.0f ms (%.2fx)' % (g_sum, s_sum, g_sum / max(s_sum, 0.001)),
           '']
    by_shape = collections.defaultdict(list)
    for t in ok:
        by_shape[t[1].shape].append(t[2] / max(t[3], 0.001))
    out += ['| shape | queries | p50 | p90 | max | gpusort ms | stock ms |', '|---|---:|---:|---:|---:|---:|---:|']
    for sh, rs in sorted(by_shape.items()):
        gsum = sum(t[2] for t in ok if t[1].shape == sh)
        ssum = sum(t[3] for t in ok if t[1].shape == sh)
        out.append('| %s | %d | %.2f | %.2f | %.2f | %.0f | %.0f |' % (
            sh, len(rs), pct(rs, 50), pct(rs, 90), max(rs), gsum, ssum))
    out.append('')
    worst = sorted(ok, key=lambda t: -t[2] / max(t[3], 0.001))[:20]
    out += ['### The 20 worst ratios', '', '| query | shape | ratio | gpusort ms | stock ms | rerun |',
            '|---:|---|---:|---:|---:|---|']
    for t in worst:
        out.append('| %d | %s | %.2f | %s%.1f | %.1f | %s |' % (
            t[0], t[1].shape, t[2] / max(t[3], 0.001), '>' if t[4] == 'timeout' else '', t[2], t[3],
            'timed out' if t[4] == 'timeout' else 'yes' if t[4] else ''))
    out.append('')
    worst_ms = sorted(ok, key=lambda t: -(t[2] - t[3]))[:10]
    out += ['### The 10 largest excesses (gpusort ms - stock ms)', '',
            '| query | shape | ratio | gpusort ms | stock ms |', '|---:|---|---:|---:|---:|']
    for t in worst_ms:
        out.append('| %d | %s | %.2f | %.1f | %.1f |' % (t[0], t[1].shape, t[2] / max(t[3], 0.001), t[2], t[3]))
    out.append('')
    out += ['### Their SQL', '']
    seen = set()
    for t in worst + worst_ms:
        if t[0] in seen:
            continue
        seen.add(t[0])
        out += ['query %d (%.2fx, %.1f ms vs %.1f ms):' % (t[0], t[2] / max(t[3], 0.001), t[2], t[3]), '```',
                repro(t[1]), '```', '']
    sql_at = out.index('### Their SQL')
    print('\n'.join(x for x in out[:sql_at] if not x.startswith('|---')))
    return out


if __name__ == '__main__':
    sys.exit(main())
