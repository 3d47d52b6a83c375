-- tree_reduce: every bad input is an ERROR that says what and where
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS gpusort;
RESET client_min_messages;

-- unknown op, bad weight attribute names, NULL arguments
SELECT tree_reduce_doc('<a/>', 'avg');
SELECT tree_reduce_doc('<a/>', 'SUM');
SELECT tree_reduce_doc('<a/>', 'sum', '');
SELECT tree_reduce_doc('<a/>', 'sum', 'a b');
SELECT tree_reduce_doc('<a/>', 'sum', '1w');
SELECT tree_reduce_doc('<a/>', NULL) IS NULL AS strict;
SELECT tree_reduce(d, NULL) FROM (VALUES ('<a/>'::xml)) v(d);
SELECT tree_reduce(d, 'sum', NULL) FROM (VALUES ('<a/>'::xml)) v(d);

-- weights that are not finite numbers name the element, attribute and value
SELECT tree_reduce_doc('<a><item w="abc"/></a>', 'sum');
SELECT tree_reduce_doc('<a w=""/>', 'sum');
SELECT tree_reduce_doc('<a w="NaN"/>', 'max');
SELECT tree_reduce_doc('<a w="Infinity"/>', 'max');
SELECT tree_reduce_doc('<a w="-inf"/>', 'min');
SELECT tree_reduce_doc('<a w="1e999"/>', 'sum');
SELECT tree_reduce_doc('<a w="0x10"/>', 'sum');
SELECT tree_reduce_doc('<a w="1,5"/>', 'sum');
SELECT tree_reduce_doc('<a w="&amp;1"/>', 'sum');
SELECT tree_reduce_doc('<part cost="12 kg"/>', 'sum', 'cost');
-- ... but only for ops that read weights
SELECT tree_reduce_doc('<a w="abc"><b w="NaN"/></a>', 'count') AS count_ignores_weights;

-- sums that could overflow double precision
SELECT tree_reduce_doc('<a w="1e308"/>', 'sum');
SELECT tree_reduce_doc('<a w="4e307"><b w="4e307"/></a>', 'max_path');
SELECT tree_reduce_doc('<a w="1e308"/>', 'max') AS max_has_no_bound;
SELECT tree_reduce(d, 'sum') FROM (VALUES ('<a w="4e307"/>'), ('<a w="4e307"/>'), ('<a w="4e307"/>'),
  ('<a w="4e307"/>'), ('<a w="4e307"/>')) v(d);

-- malformed serialized XML: byte offset and reason
SELECT tree_reduce_doc('<a>', 'sum');
SELECT tree_reduce_doc('<a></b>', 'sum');
SELECT tree_reduce_doc('</a>', 'sum');
SELECT tree_reduce_doc('<a w="1></a>', 'sum');
SELECT tree_reduce_doc('<a w=1/>', 'sum');
SELECT tree_reduce_doc('<a w="1"w="2"/>', 'sum');
SELECT tree_reduce_doc('<a w="1" w="2"/>', 'sum');
SELECT tree_reduce_doc('<a x="<"/>', 'sum');
SELECT tree_reduce_doc('<a>&nbsp;</a>', 'sum');
SELECT tree_reduce_doc('<a>AT&T</a>', 'sum');
SELECT tree_reduce_doc('<a>&#0;</a>', 'sum');
SELECT tree_reduce_doc('<a>]]></a>', 'sum');
SELECT tree_reduce_doc('1 < 2', 'sum');
SELECT tree_reduce_doc('<a><!-- a -- b --></a>', 'sum');
SELECT tree_reduce_doc('<a><!-- open', 'sum');
SELECT tree_reduce_doc('<![CDATA[x]]><a/>', 'sum');
SELECT tree_reduce_doc('<a/><?xml version="1.0"?>', 'sum');
SELECT tree_reduce_doc('<a/><!DOCTYPE a>', 'sum');
SELECT tree_reduce_doc('<a><b>' || repeat('<c/>', 1000), 'sum');

-- the aggregate wants one op and one weight attribute per group
SELECT tree_reduce(d, op) FROM (VALUES ('<a/>'::xml, 'sum'), ('<b/>', 'count')) v(d, op);
SELECT tree_reduce(d, 'sum', a) FROM (VALUES ('<a/>'::xml, 'w'), ('<b/>', 'v')) v(d, a);
-- a bad document fails the whole aggregate, wherever it is
SELECT tree_reduce(d, 'sum') FROM (VALUES ('<a w="1"/>'), (NULL), ('<a w="x"/>')) v(d);

-- names and values quoted in messages are cut to 63 bytes at a character
-- boundary, never inside one: the message stays valid UTF-8 (here e-acute
-- is two bytes, so byte 63 falls inside the 32nd; the euro sign is three)
SELECT tree_reduce_doc('<a b="' || repeat('é', 40) || '"/>', 'sum', 'b');
SELECT tree_reduce_doc('<a w="x' || repeat('€', 30) || '"/>', 'max');
SELECT tree_reduce_doc('<' || repeat('é', 40) || ' w="?"/>', 'sum');
SELECT tree_reduce_doc('<' || repeat('é', 40) || '>', 'count');
SELECT tree_reduce_doc('<a></' || repeat('é', 40) || '>', 'sum');
SELECT tree_reduce_doc('<x' || repeat('é', 40) || '></y' || repeat('é', 40) || '>', 'sum');
SELECT tree_reduce_doc('</' || repeat('é', 40) || '>', 'sum');
SELECT tree_reduce_doc('<a>&x' || repeat('é', 40) || ';</a>', 'sum');
SELECT tree_reduce_doc('<a ' || repeat('é', 40) || '="1" ' || repeat('é', 40) || '="2"/>',
  'sum', repeat('é', 40));
SELECT tree_reduce(d, 'sum') FROM (VALUES ('<a w="1"/>'),
  ('<' || repeat('é', 40) || ' w="' || repeat('é', 40) || '"/>')) v(d);
SELECT tree_reduce(d, 'min') FROM (VALUES ('<a w="1"/>'), ('<b><' || repeat('é', 40) || '>')) v(d);
-- ... so a client in another encoding gets the message, converted.  psql
-- sends this file's bytes as LATIN1: each e-acute arrives as two characters
-- of two bytes each, and after "xx" the cut at 63 bytes falls between two
-- of them, so what comes back are whole e-acutes in this file's encoding.
SET client_encoding = 'LATIN1';
SELECT tree_reduce_doc('<a b="xx' || repeat('é', 40) || '"/>', 'sum', 'b');
SELECT tree_reduce_doc('<xx' || repeat('é', 40) || '>', 'count');
SELECT tree_reduce(d, 'sum') FROM (VALUES ('<a w="1"/>'),
  ('<xx' || repeat('é', 40) || ' w="xx' || repeat('é', 40) || '"/>')) v(d);
RESET client_encoding;

-- a long reduction stops at an interrupt (here statement_timeout), in the
-- tokenizer or in the threads of the chunked contraction (on the CPU: a warm
-- GPU finishes before the timeout)
SET gpusort.device = cpu;
CREATE TEMP TABLE big AS SELECT repeat('<a w="1"><b w="2"/></a>', 1000000) AS doc;
SET statement_timeout = '10ms';
SELECT tree_reduce_doc(doc, 'sum') FROM big;
SET gpusort.tree_parallel_tokens = 2;
SELECT tree_reduce_doc(doc, 'sum') FROM big;
RESET statement_timeout;
SELECT tree_reduce_doc(doc, 'sum') FROM big;
RESET gpusort.tree_parallel_tokens;
RESET gpusort.device;
