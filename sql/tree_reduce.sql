-- tree_reduce_doc: every op on hand-worked trees (README: tree_reduce)
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS gpusort;
RESET client_min_messages;

CREATE TEMP TABLE ops(op text, ord int);
INSERT INTO ops VALUES ('sum', 1), ('count', 2), ('leaves', 3), ('height', 4),
  ('max', 5), ('min', 6), ('max_path', 7), ('min_path', 8), ('max_subtree', 9);

-- The paper's Figure 5 tree 3(6, 2(5, 1)):
-- sum 17, max_path 3+2+5 = 10, height 3, count 5, leaves 3, max_subtree 17
SELECT op, tree_reduce_doc('<v w="3"><v w="6"/><v w="2"><v w="5"/><v w="1"/></v></v>'::xml, op)
FROM ops ORDER BY ord;

-- r(-2) with children a(5) [c(-1), d(4) [e(-6)]], b(3), f(-7) [g(10), h(-3)]
--   sum 3, count 9, leaves c e b g h = 5, height r-a-d-e = 4, max 10, min -7,
--   paths: r-a-c 2, r-a-d-e 1, r-b 1, r-f-g 1, r-f-h -12: max_path 2, min_path -12
--   subtree sums: c -1, e -6, d -2, a 2, b 3, g 10, h -3, f 0, r 3: max_subtree 10
SELECT op, tree_reduce_doc(
  '<r w="-2">
     <a w="5"><c w="-1"/><d w="4"><e w="-6"/></d></a>
     <b w="3"/>
     <f w="-7"><g w="10"/><h w="-3"/></f>
   </r>'::xml, op)
FROM ops ORDER BY ord;

-- A forest combines its trees with the op's (+):
-- a(1), b(2) [c(3)]: sum 6, count 3, leaves 2, height 2, max_path 5, min_path 1, max_subtree 5
SELECT op, tree_reduce_doc('<a w="1"/>text between trees<b w="2"><c w="3"/></b>', op)
FROM ops ORDER BY ord;

-- Elements without the attribute weigh the identity of (x): 0 for the
-- additive ops, and they do not count for max / min.
-- a [b(3), c]: sum 3, max 3, min 3, max_path 3, min_path 0, max_subtree 3
SELECT op, tree_reduce_doc('<a><b w="3"/><c/></a>', op) FROM ops ORDER BY ord;
SELECT tree_reduce_doc('<a><b/></a>', 'max') AS no_weights_max,
       tree_reduce_doc('<a><b/></a>', 'min') AS no_weights_min;

-- Another weight attribute; w is then just another attribute
SELECT op, tree_reduce_doc('<a cost="10" w="99"><b cost="-4"/><c cost="2.5" w="1"/></a>', op, 'cost')
FROM ops ORDER BY ord;

-- Weight syntax: quotes, white space, signs, exponents, references
SELECT tree_reduce_doc($$<a w='1e3'><b w=" -2.5 "/><c w="+.5"/><d w="&#52;&#x32;"/><e w='7.'/></a>$$, 'sum');

-- Markup that is not a vertex: comments, PIs, CDATA, DOCTYPE, references in text
SELECT tree_reduce_doc($$<?xml version="1.0"?>
<!DOCTYPE r [ <!ELEMENT r ANY> <!-- not <x w="100"/> --> ]>
<r w="1"><!-- <x w="100"/> --><?pi <x w="100"/> ?><![CDATA[ <x w="100"/> ]]>&lt;x w="100"/&gt;<y w="2"/></r>$$, 'sum');

-- Deeper than the xml type's input accepts: the text form has no depth limit
SELECT op, tree_reduce_doc(repeat('<n w="1">', 20000) || repeat('</n>', 20000), op)
FROM ops WHERE op IN ('sum', 'height', 'leaves', 'max_path', 'max_subtree') ORDER BY ord;

-- Documents without elements give NULL
SELECT tree_reduce_doc('', 'sum') IS NULL AS empty,
       tree_reduce_doc('only text', 'count') IS NULL AS text_only,
       tree_reduce_doc('<!-- c --><?pi?>', 'count') IS NULL AS markup_only,
       tree_reduce_doc(NULL::xml, 'sum') IS NULL AS null_doc;

-- The chunked contraction (several pieces, several threads) gives what the
-- sequential pass gives: a 3000-element tree 750 deep with mixed shapes
CREATE TEMP TABLE deep AS
SELECT string_agg(format('<n w="%s">%s', (i * 37) % 101 - 50,
         CASE i % 4 WHEN 0 THEN '</n></n>' WHEN 2 THEN '</n>' WHEN 3 THEN '<x w="-9"/>' ELSE '' END),
         '' ORDER BY i) || repeat('</n>', 750) AS doc
FROM generate_series(1, 3000) i;

CREATE TEMP TABLE seq AS
SELECT op, ord, tree_reduce_doc(doc, op) AS v FROM ops, deep;
SELECT op, v FROM seq ORDER BY ord;

SET gpusort.tree_parallel_tokens = 2;
SET gpusort.tree_threads = 1;
SELECT s.op, s.v, tree_reduce_doc(d.doc, s.op) FROM seq s, deep d
WHERE tree_reduce_doc(d.doc, s.op) IS DISTINCT FROM s.v;
SET gpusort.tree_threads = 3;
SELECT s.op, s.v, tree_reduce_doc(d.doc, s.op) FROM seq s, deep d
WHERE tree_reduce_doc(d.doc, s.op) IS DISTINCT FROM s.v;
SELECT op, tree_reduce_doc('<v w="3"><v w="6"/><v w="2"><v w="5"/><v w="1"/></v></v>', op)
FROM ops ORDER BY ord;
RESET gpusort.tree_parallel_tokens;
RESET gpusort.tree_threads;
