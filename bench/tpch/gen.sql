-- TPC-H-derived data generator, part 1: the functions and the text pool
-- that bench/tpch/load.sh's INSERTs use (schema tpch_gen, dropped after
-- the load).  Not the official dbgen, and not audited: it follows the
-- TPC-H specification's (3.0.1, clause 4.2) cardinalities, value ranges,
-- word lists and text grammar closely enough for the 22 queries with their
-- validation parameters to select what they select from dbgen's data, but
-- none of its values is dbgen's.
--
-- Every value is a function of its row's key and a per-column seed through
-- hashint8extended, so the data is the same at every run, whatever the
-- number of sessions that load it, and on PostgreSQL 15, 17 and 18 (the
-- extended hash functions are fixed: hash partitioning depends on them).
-- The functions are single-expression SQL functions, which the planner
-- inlines (no call per row).

CREATE SCHEMA tpch_gen;

-- r(seed, k, lo, hi): an integer in [lo, hi], uniform, of (seed, k)
CREATE FUNCTION tpch_gen.r(seed int8, k int8, lo int8, hi int8) RETURNS int8
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT lo + (hashint8extended(k, seed) & 9223372036854775807) % (hi - lo + 1) $$;

-- weighted('a|3,b|1'): the words repeated by their weights, {a,a,a,b}
-- (constant-folded where its argument is a constant)
CREATE FUNCTION tpch_gen.weighted(spec text) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT array_agg(split_part(e, '|', 1) ORDER BY o, g)
     FROM unnest(string_to_array(spec, ',')) WITH ORDINALITY u(e, o),
          generate_series(1, split_part(e, '|', 2)::int) g $$;

-- pick(a, seed, k): an element of a, uniform, of (seed, k)
CREATE FUNCTION tpch_gen.pick(a text[], seed int8, k int8) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT a[1 + tpch_gen.r(seed, k, 0, cardinality(a) - 1)] $$;

---------------------------------------------------------------------------
-- Word lists (clause 4.2.2.13 and dbgen's dists.dss)

CREATE FUNCTION tpch_gen.colors() RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT ARRAY[
	'almond', 'antique', 'aquamarine', 'azure', 'beige', 'bisque', 'black', 'blanched', 'blue',
	'blush', 'brown', 'burlywood', 'burnished', 'chartreuse', 'chiffon', 'chocolate', 'coral',
	'cornflower', 'cornsilk', 'cream', 'cyan', 'dark', 'deep', 'dim', 'dodger', 'drab', 'firebrick',
	'floral', 'forest', 'frosted', 'gainsboro', 'ghost', 'goldenrod', 'green', 'grey', 'honeydew',
	'hot', 'indian', 'ivory', 'khaki', 'lace', 'lavender', 'lawn', 'lemon', 'light', 'lime', 'linen',
	'magenta', 'maroon', 'medium', 'metallic', 'midnight', 'mint', 'misty', 'moccasin', 'navajo',
	'navy', 'olive', 'orange', 'orchid', 'pale', 'papaya', 'peach', 'peru', 'pink', 'plum', 'powder',
	'puff', 'purple', 'red', 'rose', 'rosy', 'royal', 'saddle', 'salmon', 'sandy', 'seashell',
	'sienna', 'sky', 'slate', 'smoke', 'snow', 'spring', 'steel', 'tan', 'thistle', 'tomato',
	'turquoise', 'violet', 'wheat', 'white', 'yellow']::text[] $$;

-- p_type: 6 x 5 x 5 syllables; p_container: 5 x 8
CREATE FUNCTION tpch_gen.type_s1() RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT '{STANDARD,SMALL,MEDIUM,LARGE,ECONOMY,PROMO}'::text[] $$;
CREATE FUNCTION tpch_gen.type_s2() RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT '{ANODIZED,BURNISHED,PLATED,POLISHED,BRUSHED}'::text[] $$;
CREATE FUNCTION tpch_gen.type_s3() RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT '{TIN,NICKEL,BRASS,STEEL,COPPER}'::text[] $$;
CREATE FUNCTION tpch_gen.container_s1() RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT '{SM,LG,MED,JUMBO,WRAP}'::text[] $$;
CREATE FUNCTION tpch_gen.container_s2() RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT '{CASE,BOX,BAG,JAR,PKG,PACK,CAN,DRUM}'::text[] $$;
CREATE FUNCTION tpch_gen.segments() RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT '{AUTOMOBILE,BUILDING,FURNITURE,MACHINERY,HOUSEHOLD}'::text[] $$;
CREATE FUNCTION tpch_gen.priorities() RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT '{1-URGENT,2-HIGH,3-MEDIUM,4-NOT SPECIFIED,5-LOW}'::text[] $$;
CREATE FUNCTION tpch_gen.instructions() RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT '{DELIVER IN PERSON,COLLECT COD,NONE,TAKE BACK RETURN}'::text[] $$;
CREATE FUNCTION tpch_gen.modes() RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT '{REG AIR,AIR,RAIL,SHIP,TRUCK,MAIL,FOB}'::text[] $$;

-- the text grammar's words, with dists.dss's weights
CREATE FUNCTION tpch_gen.noun(s int8, seed int8) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT tpch_gen.pick(tpch_gen.weighted('packages|40,requests|40,accounts|40,deposits|40,'
	'foxes|20,ideas|20,theodolites|20,pinto beans|20,instructions|20,dependencies|10,excuses|10,'
	'platelets|10,asymptotes|10,courts|5,dolphins|5,multipliers|1,sauternes|1,warthogs|1,frets|1,'
	'dinos|1,attainments|1,somas|1,Tiresias''|1,patterns|1,forges|1,braids|1,hockey players|1,'
	'frays|1,warhorses|1,dugouts|1,notornis|1,epitaphs|1,pearls|1,tithes|1,waters|1,orbits|1,'
	'gifts|1,sheaves|1,depths|1,sentiments|1,decoys|1,realms|1,pains|1,grouches|1,escapades|1'),
	seed, s) $$;
CREATE FUNCTION tpch_gen.verb(s int8, seed int8) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT tpch_gen.pick(tpch_gen.weighted('sleep|20,wake|20,are|20,cajole|20,haggle|20,nag|10,'
	'use|10,boost|10,affix|5,detect|5,integrate|5,maintain|1,nod|1,was|1,lose|1,sublate|1,solve|1,'
	'thrash|1,promise|1,engage|1,hinder|1,print|1,x-ray|1,breach|1,eat|1,grow|1,impress|1,mold|1,'
	'poach|1,serve|1,run|1,dazzle|1,snooze|1,doze|1,unwind|1,kindle|1,play|1,hang|1,believe|1,'
	'doubt|1'), seed, s) $$;
CREATE FUNCTION tpch_gen.adjective(s int8, seed int8) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT tpch_gen.pick(tpch_gen.weighted('special|20,pending|20,unusual|20,express|20,furious|1,'
	'sly|1,careful|1,blithe|1,quick|1,fluffy|1,slow|1,quiet|1,ruthless|1,thin|1,close|1,dogged|1,'
	'daring|1,brave|1,stealthy|1,permanent|1,enticing|1,idle|1,busy|1,regular|50,final|40,'
	'ironic|40,even|30,bold|20,silent|10'), seed, s) $$;
CREATE FUNCTION tpch_gen.adverb(s int8, seed int8) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT tpch_gen.pick(tpch_gen.weighted('sometimes|1,always|1,never|1,furiously|50,slyly|50,'
	'carefully|50,blithely|40,quickly|30,fluffily|20,slowly|1,quietly|1,ruthlessly|1,thinly|1,'
	'closely|1,doggedly|1,daringly|1,bravely|1,stealthily|1,permanently|1,enticingly|1,idly|1,'
	'busily|1,regularly|1,finally|1,ironically|1,evenly|1,boldly|1,silently|1'), seed, s) $$;
CREATE FUNCTION tpch_gen.preposition(s int8, seed int8) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT tpch_gen.pick(tpch_gen.weighted('about|50,above|50,according to|50,across|50,after|50,'
	'against|40,along|40,alongside of|30,among|30,around|20,at|10,atop|1,before|1,behind|1,'
	'beneath|1,beside|1,besides|1,between|1,beyond|1,by|1,despite|1,during|1,except|1,for|1,'
	'from|1,in place of|1,inside|1,instead of|1,into|1,near|1,of|1,on|1,outside|1,over|1,past|1,'
	'since|1,through|1,throughout|1,to|1,toward|1,under|1,until|1,up|1,upon|1,without|1,with|1,'
	'within|1'), seed, s) $$;
CREATE FUNCTION tpch_gen.auxiliary(s int8, seed int8) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT tpch_gen.pick(tpch_gen.weighted('do|1,may|1,might|1,shall|1,will|1,would|1,can|1,'
	'could|1,should|1,ought to|1,must|1,will have to|1,shall have to|1,could have to|1,'
	'should have to|1,must have to|1,need to|1,try to|1'), seed, s) $$;
CREATE FUNCTION tpch_gen.terminator(s int8, seed int8) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT tpch_gen.pick(tpch_gen.weighted('.|50,;|1,:|1,?|1,!|1,--|1'), seed, s) $$;

-- the grammar (clause 4.2.2.14): noun phrases N|10, J N|20, "J, J N"|10,
-- D J N|50; verb phrases V|30, X V|1, V D|40, X V D|1; prepositional
-- phrases "P the N"; sentences N V T|3, N V P T|3, N V N T|3, N P V N T|1,
-- N P V P T|1.  b is the sentence's slot: each word its own seed.
CREATE FUNCTION tpch_gen.np(s int8, b int8) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT CASE tpch_gen.r(b, s, 0, 8)
	WHEN 0 THEN tpch_gen.noun(s, b + 1)
	WHEN 1 THEN tpch_gen.adjective(s, b + 2) || ' ' || tpch_gen.noun(s, b + 1)
	WHEN 2 THEN tpch_gen.adjective(s, b + 2) || ' ' || tpch_gen.noun(s, b + 1)
	WHEN 3 THEN tpch_gen.adjective(s, b + 2) || ', ' || tpch_gen.adjective(s, b + 3) || ' ' || tpch_gen.noun(s, b + 1)
	ELSE tpch_gen.adverb(s, b + 4) || ' ' || tpch_gen.adjective(s, b + 2) || ' ' || tpch_gen.noun(s, b + 1) END $$;
CREATE FUNCTION tpch_gen.vp(s int8, b int8) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT CASE WHEN tpch_gen.r(b, s, 0, 71) < 30 THEN tpch_gen.verb(s, b + 1)
	WHEN tpch_gen.r(b, s, 0, 71) < 31 THEN tpch_gen.auxiliary(s, b + 2) || ' ' || tpch_gen.verb(s, b + 1)
	WHEN tpch_gen.r(b, s, 0, 71) < 71 THEN tpch_gen.verb(s, b + 1) || ' ' || tpch_gen.adverb(s, b + 3)
	ELSE tpch_gen.auxiliary(s, b + 2) || ' ' || tpch_gen.verb(s, b + 1) || ' ' || tpch_gen.adverb(s, b + 3) END $$;
CREATE FUNCTION tpch_gen.pp(s int8, b int8) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT tpch_gen.preposition(s, b) || ' the ' || tpch_gen.np(s, b + 10) $$;
CREATE FUNCTION tpch_gen.sentence(s int8) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT CASE tpch_gen.r(0, s, 0, 10)
	WHEN 0 THEN tpch_gen.np(s, 100) || ' ' || tpch_gen.vp(s, 200)
	WHEN 1 THEN tpch_gen.np(s, 100) || ' ' || tpch_gen.vp(s, 200)
	WHEN 2 THEN tpch_gen.np(s, 100) || ' ' || tpch_gen.vp(s, 200)
	WHEN 3 THEN tpch_gen.np(s, 100) || ' ' || tpch_gen.vp(s, 200) || ' ' || tpch_gen.pp(s, 300)
	WHEN 4 THEN tpch_gen.np(s, 100) || ' ' || tpch_gen.vp(s, 200) || ' ' || tpch_gen.pp(s, 300)
	WHEN 5 THEN tpch_gen.np(s, 100) || ' ' || tpch_gen.vp(s, 200) || ' ' || tpch_gen.pp(s, 300)
	WHEN 6 THEN tpch_gen.np(s, 100) || ' ' || tpch_gen.vp(s, 200) || ' ' || tpch_gen.np(s, 300)
	WHEN 7 THEN tpch_gen.np(s, 100) || ' ' || tpch_gen.vp(s, 200) || ' ' || tpch_gen.np(s, 300)
	WHEN 8 THEN tpch_gen.np(s, 100) || ' ' || tpch_gen.vp(s, 200) || ' ' || tpch_gen.np(s, 300)
	WHEN 9 THEN tpch_gen.np(s, 100) || ' ' || tpch_gen.pp(s, 200) || ' ' || tpch_gen.vp(s, 300) || ' ' || tpch_gen.np(s, 400)
	ELSE tpch_gen.np(s, 100) || ' ' || tpch_gen.pp(s, 200) || ' ' || tpch_gen.vp(s, 300) || ' ' || tpch_gen.pp(s, 400)
	END || tpch_gen.terminator(s, 1) $$;

-- The text pool (clause 4.2.2.10): sentences of the grammar, one after
-- another, 10 MB of them (dbgen's is 300 MB); a comment of length [lo, hi]
-- is a substring of it at an offset of its row's (tpch_gen.text below).
CREATE TABLE tpch_gen.pool AS
SELECT substring(convert_to(string_agg(tpch_gen.sentence(s), ' ' ORDER BY s), 'UTF8') FROM 1 FOR 10000000) AS b
  FROM generate_series(1, 250000) s;
DO $$ BEGIN
	IF (SELECT octet_length(b) FROM tpch_gen.pool) < 10000000 THEN
		RAISE EXCEPTION 'tpch_gen.pool: too short';
	END IF;
END $$;

-- text(pool, seed, k, lo, hi): a comment of [lo, hi] characters; pool is
-- tpch_gen.pool's b detoasted once per statement,
-- (SELECT b || ''::bytea FROM tpch_gen.pool), an initplan: a substring of
-- the bytea is then a copy of its bytes, where one of a text value would
-- walk its characters from the start
CREATE FUNCTION tpch_gen.text(pool bytea, seed int8, k int8, lo int8, hi int8) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT convert_from(substring(pool FROM (1 + tpch_gen.r(seed, k, 0, 10000000 - hi))::int
	FOR tpch_gen.r(seed + 1, k, lo, hi)::int), 'UTF8') $$;

-- vstring(seed, k, lo, hi): a random string of [lo, hi] (<= 42) letters,
-- digits, commas and points (clause 4.2.2.7's v-string)
CREATE FUNCTION tpch_gen.vstring(seed int8, k int8, lo int8, hi int8) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT translate(left(encode(sha256(int8send(k) || int8send(seed)), 'base64'),
	tpch_gen.r(seed, k, lo, hi)::int), '+/', ',.') $$;

-- phone(seed, k, nationkey): "CC-LLL-LLL-LLLL", country code nationkey + 10
-- (clause 4.2.2.9)
CREATE FUNCTION tpch_gen.phone(seed int8, k int8, nk int8) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT (nk + 10)::text || '-' || tpch_gen.r(seed, k, 100, 999)::text || '-' ||
	tpch_gen.r(seed + 1, k, 100, 999)::text || '-' || tpch_gen.r(seed + 2, k, 1000, 9999)::text $$;

---------------------------------------------------------------------------
-- Keys and prices shared by several tables (clause 4.2.3)

-- p_retailprice of part k
CREATE FUNCTION tpch_gen.retailprice(k int8) RETURNS numeric LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT (90000 + ((k / 10) % 20001) + 100 * (k % 1000)) * 0.01 $$;

-- the j-th (0..3) supplier of part k among S suppliers (partsupp and lineitem)
CREATE FUNCTION tpch_gen.suppkey(k int8, j int8, S int8) RETURNS int8 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT (k + (j * (S / 4 + (k - 1) / S))) % S + 1 $$;

-- orders: the i-th order's key, sparse as dbgen's (8 keys used of each 32)
CREATE FUNCTION tpch_gen.orderkey(i int8) RETURNS int8 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT ((i >> 3) << 5) | (i & 7) $$;
-- its date, 1992-01-01 .. 1998-12-31 less 151 days, and its number of lines (1..7)
CREATE FUNCTION tpch_gen.orderdate(i int8) RETURNS date LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT date '1992-01-01' + tpch_gen.r(501, i, 0, date '1998-08-02' - date '1992-01-01')::int $$;
CREATE FUNCTION tpch_gen.nlines(i int8) RETURNS int8 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT tpch_gen.r(502, i, 1, 7) $$;

-- lineitem: line l of order i (its values' key is i * 8 + l)
CREATE FUNCTION tpch_gen.l_partkey(i int8, l int8, P int8) RETURNS int8 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT tpch_gen.r(601, i * 8 + l, 1, P) $$;
CREATE FUNCTION tpch_gen.l_quantity(i int8, l int8) RETURNS int8 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT tpch_gen.r(602, i * 8 + l, 1, 50) $$;
CREATE FUNCTION tpch_gen.l_extendedprice(i int8, l int8, P int8) RETURNS numeric LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT tpch_gen.l_quantity(i, l) * tpch_gen.retailprice(tpch_gen.l_partkey(i, l, P)) $$;
CREATE FUNCTION tpch_gen.l_discount(i int8, l int8) RETURNS numeric LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT tpch_gen.r(603, i * 8 + l, 0, 10) * 0.01 $$;
CREATE FUNCTION tpch_gen.l_tax(i int8, l int8) RETURNS numeric LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT tpch_gen.r(604, i * 8 + l, 0, 8) * 0.01 $$;
CREATE FUNCTION tpch_gen.l_shipdate(i int8, l int8) RETURNS date LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT tpch_gen.orderdate(i) + tpch_gen.r(605, i * 8 + l, 1, 121)::int $$;
CREATE FUNCTION tpch_gen.l_receiptdate(i int8, l int8) RETURNS date LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT tpch_gen.l_shipdate(i, l) + tpch_gen.r(606, i * 8 + l, 1, 30)::int $$;
