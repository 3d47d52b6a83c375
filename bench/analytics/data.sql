-- The analytics benchmark's data (bench/analytics/analytics.sh): one table
-- of events as analysts have them, generated in SQL, deterministic.
--
-- Run by psql (ON_ERROR_STOP) in the en_US.UTF-8 database, in two phases:
--   psql -f data.sql                               the generator and the tables
--   psql -v lo=L -v hi=H -v accounts=A -v users=U -f data.sql
--                                                  rows L..H of ev (one session
--                                                  a slice, several at once)
-- Every value is a function of the row's number i and a per-column seed
-- through hashint8extended (fixed across PostgreSQL versions), so the rows
-- are the same whatever the number of sessions that load them.
--
-- ev: id bigint (1..ROWS, unique); account int (A = ROWS/50 accounts, 2*10^5
-- at 10^7 rows); user_id bigint (U = min(ROWS/16, 131072) users); category
-- text (970 values of three levels sharing long prefixes, "Electronics >
-- Audio & Video > Headphones > Over-Ear", skewed: the lower ones more
-- frequent); name text (24 first names, an initial, 24 last names: hyphens,
-- apostrophes, accents; 14,976 values); email; city (40 values) and country
-- (12), 480 pairs; ts timestamptz (uniform over 2024 to the microsecond);
-- day date (ts's, in UTC); amount numeric(12,2) (0 to 19999.99; 5% refunds,
-- -999.99 to 0); price numeric(12,2) (0.01 to 999.99); qty int (1 to
-- 12); flag bool (10% true).
\if :{?lo}
INSERT INTO ev
SELECT i, 1 + ev_gen.h(1, i) % :accounts, 1 + ev_gen.h(2, i) % :users,
       ev_gen.category(least(ev_gen.h(3, i) % 970, ev_gen.h(4, i) % 970)),
       f || ' ' || chr(65 + (ev_gen.h(6, i) % 26)::int) || '. ' || l,
       translate(lower(f || '.' || l), ' ''', '') || (ev_gen.h(7, i) % 1000)
         || '@' || ev_gen.pick(ARRAY['example.com', 'mail.example-shop.co.uk', 'exämple.de', 'corp.example.org'], 8, i),
       ev_gen.pick(ev_gen.cities(), 0, k % 40), ev_gen.pick(ev_gen.countries(), 0, k / 40),
       (ts AT TIME ZONE 'UTC')::date, ts,
       CASE WHEN ev_gen.h(11, i) % 20 = 0 THEN -(ev_gen.h(10, i) % 100000) / 100.0
            ELSE (ev_gen.h(10, i) % 2000000) / 100.0 END,
       (1 + ev_gen.h(12, i) % 99999) / 100.0,
       1 + ev_gen.h(13, i) % 12,
       ev_gen.h(14, i) % 10 = 0
  FROM generate_series(:lo::int8, :hi) i,
       LATERAL (SELECT ev_gen.pick(ev_gen.first_names(), 5, i) AS f,
                       ev_gen.pick(ev_gen.last_names(), 9, i) AS l,
                       ev_gen.h(15, i) % 480 AS k,
                       timestamptz '2024-01-01 00:00:00+00'
                         + (ev_gen.h(16, i) % 31622400000000) * interval '1 microsecond' AS ts) x;
\else
DROP TABLE IF EXISTS ev, ev_ctas, ev_daily;
DROP SCHEMA IF EXISTS ev_gen CASCADE;
CREATE SCHEMA ev_gen;

-- h(seed, i): a non-negative bigint of (seed, i)
CREATE FUNCTION ev_gen.h(seed int8, i int8) RETURNS int8
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT hashint8extended(i, seed) & 9223372036854775807 $$;

-- pick(a, seed, i): an element of a, by seed's hash of i (seed 0: a[1 + i])
CREATE FUNCTION ev_gen.pick(a text[], seed int8, i int8) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT a[1 + (CASE WHEN seed = 0 THEN i ELSE ev_gen.h(seed, i) END) % cardinality(a)] $$;

CREATE FUNCTION ev_gen.first_names() RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT ARRAY['Anne-Marie', 'Jean-Luc', 'Zoë', 'Zoe', 'Chloé', 'Søren', 'Åsa', 'Ömer', 'Seán', 'Mary Jo',
                'Mary-Jo', 'Marie-Hélène', 'José Luis', 'Ana', 'Björn', 'François', 'D''Arcy', 'Łukasz',
                'Renée', 'Nuño', 'O''Neal', 'Li', 'Ælfric', 'ana'] $$;

CREATE FUNCTION ev_gen.last_names() RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT ARRAY['O''Brien', 'OBrien', 'O Brien', 'D''Angelo', 'Lefèvre-Durand', 'Lefevre Durand',
                'van der Berg', 'Van Der Berg', 'MacDonald', 'Mc Donald', 'Ødegaard', 'Åström',
                'Çelik', 'Iñárritu', 'Núñez', 'Nunez', 'Smith', 'Smith-Jones', 'García Márquez',
                'Müller', 'Mueller', 'de la Cruz', 'Dupont', 'Nguyễn'] $$;

CREATE FUNCTION ev_gen.cities() RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT ARRAY['Saint-Étienne', 'L''Haÿ-les-Roses', 'Aix-en-Provence', 'Île-Saint-Denis', 'München',
                'Münster', 'Malmö', 'Örebro', 'İstanbul', 'Izmir', 'New York', 'Newark', 'St. Louis',
                'St Louis', 'Saint Louis', 'Zürich', 'Zurich', 'São Paulo', 'Sao Paulo', 'Kraków',
                'Łódź', 'Göteborg', 'Gothenburg', 'Köln', 'Cologne', 'Genève', 'Geneva', 'A Coruña',
                'Coruña', 'Reykjavík', 'Tromsø', 'Aarhus', 'Århus', 'Dún Laoghaire', 'Las Vegas',
                'Los Angeles', 'los angeles', 'Washington, D.C.', 'Washington', 'Winston-Salem'] $$;

CREATE FUNCTION ev_gen.countries() RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT ARRAY['France', 'Deutschland', 'Sverige', 'Türkiye', 'United States', 'Österreich',
                'Ísland', 'Česko', 'España', 'Italia', 'Danmark', 'Schweiz'] $$;

-- category(c), c in 0..969: three levels, the leaf varying slowest
CREATE FUNCTION ev_gen.category(c int8) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT (ARRAY['Electronics', 'Home & Garden', 'Sports & Outdoors', 'Clothing, Shoes & Jewelry',
                 'Health & Personal Care', 'Toys & Games', 'Books', 'Automotive', 'Beauty & Cosmétiques',
                 'Office Products'])[1 + c % 10]
       || ' > ' ||
       (ARRAY['Audio & Video', 'Accessories', 'Parts & Spares', 'Sale', 'New Arrivals', 'Kids''',
              'Premium', 'Outlet', 'Gifts', 'Refurbished'])[1 + c / 10 % 10]
       || ' > ' ||
       (ARRAY['Headphones > Over-Ear', 'Headphones > In-Ear', 'Cables & Adapters', 'Chargers',
              'Cases & Covers', 'Décor', 'Café Supplies', 'Small Appliances', 'Storage', 'Tools'])[1 + c / 100]
$$;

CREATE UNLOGGED TABLE ev (
	id bigint, account int, user_id bigint, category text, name text, email text,
	city text, country text, day date, ts timestamptz, amount numeric(12,2),
	price numeric(12,2), qty int, flag bool);

-- the target of the INSERT ... SELECT ... ORDER BY shape
CREATE UNLOGGED TABLE ev_daily (day date, account int, id bigint, amount numeric(12,2), category text);
\endif
