/*
 * xmltok_oracle: src/tree/xmltok.c against libxml2 on generated documents.
 *
 *   xmltok_oracle [seed] [documents]
 *
 * Each document is random XML content: an optional BOM, XML declaration,
 * DOCTYPE with an internal subset, comments, PIs, CDATA, text and
 * attribute values with entity and character references in both quote
 * styles, weights in every syntax (and some that are not numbers), and
 * forests.  A mutated copy (a byte deleted, inserted or replaced) of every
 * document is checked too.
 *
 * Whenever libxml2 accepts a document, the tokenizer must give exactly the
 * array libxml2's tree gives (weight of each element's "w" attribute as
 * gs_parse_weight reads libxml2's attribute value, in preorder, close
 * marker after each subtree), or fail with GS_XML_BAD_WEIGHT at the same
 * first bad weight.  Documents libxml2 rejects must be rejected too, except
 * for the few things the tokenizer deliberately does not check or allows
 * (byte encoding, names' non-ASCII characters, the XML declaration's
 * contents, DOCTYPE internals, repeated attributes other than the weight,
 * and text or no element at the top level, since it reads XML content, not
 * a document), which are counted but not failures (ORACLE_VERBOSE=2 prints
 * them).  Set ORACLE_VERBOSE=1 to see only those of wrapped content.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "tree/xmltok.h"

static unsigned long long rng_state;

static unsigned
rnd(unsigned n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return n ? (unsigned) (rng_state % n) : 0;
}

typedef struct Buf
{
	char	   *d;
	size_t		n,
				cap;
} Buf;

static void
put(Buf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap)
	{
		b->cap = (b->n + n + 1) * 2;
		b->d = realloc(b->d, b->cap);
	}
	memcpy(b->d + b->n, s, n);
	b->n += n;
	b->d[b->n] = '\0';
}

static void
puts_(Buf *b, const char *s)
{
	put(b, s, strlen(s));
}

static void
printf_(Buf *b, const char *fmt,...)
{
	char		tmp[256];
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	puts_(b, tmp);
}

static const char *
pick(const char *const *a, unsigned n)
{
	return a[rnd(n)];
}

#define PICK(a) pick((a), sizeof(a) / sizeof((a)[0]))

static void
gen_space(Buf *b)
{
	static const char *const sp[] = {"", "", " ", "\n", "\t", "  \r\n"};

	puts_(b, PICK(sp));
}

/* character data (text or attribute value), with references */
static void
gen_chars(Buf *b, char quote)
{
	static const char *const bits[] = {
		"a", "text", " ", "\n", "&amp;", "&lt;", "&gt;", "&quot;", "&apos;",
		"&#65;", "&#x42;", "&#233;", "&#x1F600;", "\xc3\xa9", "]", "]]", ">",
		"'", "\"", "1.5", "-", "#"
	};
	unsigned	n = rnd(5);

	while (n--)
	{
		const char *s = PICK(bits);

		if (quote && s[0] == quote && s[1] == '\0')
			continue;
		if (!quote && strcmp(s, "]]") == 0)
			continue;			/* "]]>" must not appear in text */
		puts_(b, s);
	}
}

static void
gen_weight(Buf *b)
{
	static const char *const good[] = {
		"12", "-3.5", "+4", ".5", "5.", "1e3", "1E-2", " 7 ", "&#49;&#50;",
		"&#x31;0", "0", "-0", "1000000", "2.5e+2", "\n8\t", "123456789012345678",
		"0.000001", "-999.25"
	};
	static const char *const bad[] = {
		"abc", "", "NaN", "inf", "-Infinity", "1e999", "0x10", "1,5", "1 2",
		"e5", ".", "+", "--1", "1e", "&amp;"
	};

	if (rnd(12) == 0)
		puts_(b, PICK(bad));
	else if (rnd(3) == 0)
		printf_(b, "%d", (int) rnd(2001) - 1000);
	else
		puts_(b, PICK(good));
}

static void
gen_attrs(Buf *b)
{
	static const char *const names[] = {"w", "x", "id", "cost", "w2", "xml:lang"};
	bool		used[6] = {false};
	unsigned	n = rnd(4);

	while (n--)
	{
		unsigned	i = rnd(6);
		char		q = rnd(2) ? '"' : '\'';

		if (used[i])
			continue;
		used[i] = true;
		puts_(b, rnd(4) ? " " : "\n  ");
		puts_(b, names[i]);
		gen_space(b);
		puts_(b, "=");
		gen_space(b);
		put(b, &q, 1);
		if (i == 0)
			gen_weight(b);
		else
			gen_chars(b, q);
		put(b, &q, 1);
	}
}

static void
gen_misc(Buf *b, bool in_element)
{
	switch (rnd(in_element ? 5 : 3))
	{
		case 0:
			puts_(b, "<!-- a comment - with > and < -->");
			break;
		case 1:
			puts_(b, "<?target some data ? > ?>");
			break;
		case 2:
			gen_space(b);
			break;
		case 3:
			puts_(b, "<![CDATA[ <x w=\"5\"> ]] ]> & ]]>");
			break;
		default:
			gen_chars(b, 0);
			break;
	}
}

static void
gen_content(Buf *b, int max_depth, int budget, bool top_text)
{
	static const char *const names[] = {"a", "b", "item", "part", "x-y", "_z", "n.1", "\xc3\xa9l"};
	const char *stack[256];
	int			sp = 0;

	while (budget > 0 || sp > 0)
	{
		unsigned	r = rnd(10);

		if (sp > 0 && (budget <= 0 || r < 3))
		{
			puts_(b, "</");
			puts_(b, stack[--sp]);
			gen_space(b);
			puts_(b, ">");
		}
		else if (r < 7 && sp < max_depth)
		{
			const char *name = PICK(names);

			budget--;
			puts_(b, "<");
			puts_(b, name);
			gen_attrs(b);
			gen_space(b);
			if (rnd(3) == 0)
				puts_(b, "/>");
			else
			{
				puts_(b, ">");
				stack[sp++] = name;
			}
		}
		else if (sp > 0 || top_text)
			gen_misc(b, sp > 0);
		else
			budget--;
	}
}

/* ---- oracle ------------------------------------------------------------- */

typedef struct Expect
{
	double	   *tok;
	size_t		n,
				cap;
	bool		bad_weight;
} Expect;

static void
expect_push(Expect *e, double t)
{
	if (e->n == e->cap)
	{
		e->cap = e->cap ? e->cap * 2 : 64;
		e->tok = realloc(e->tok, e->cap * sizeof(double));
	}
	e->tok[e->n++] = t;
}

/* preorder walk of the element tree, without recursion */
static void
walk(xmlNode *first, xmlNode *stop_parent, Expect *e)
{
	xmlNode    *n = first;

	while (n && !e->bad_weight)
	{
		if (n->type == XML_ELEMENT_NODE)
		{
			xmlAttr    *a = xmlHasProp(n, (const xmlChar *) "w");
			double		w = 0.0;

			if (a && a->type == XML_ATTRIBUTE_NODE)
			{
				xmlChar    *v = xmlNodeListGetString(n->doc, a->children, 1);
				const char *s = v ? (const char *) v : "";

				if (!gs_parse_weight(s, strlen(s), &w))
					e->bad_weight = true;
				xmlFree(v);
			}
			expect_push(e, w);
			if (n->children)
			{
				n = n->children;
				continue;
			}
			expect_push(e, gs_close_token());
		}
		/* next node: sibling, or climb, closing elements on the way */
		while (n && !n->next)
		{
			n = n->parent;
			if (n == NULL || n == stop_parent || n->type != XML_ELEMENT_NODE)
				return;
			expect_push(e, gs_close_token());
		}
		if (n)
			n = n->next;
	}
}

static void *
grow_realloc(void *arg, void *old, size_t n)
{
	(void) arg;
	return realloc(old, n);
}

static long n_docs,
			n_accepted,
			n_both_reject,
			n_lenient,
			n_fail;

static void
check(const char *doc, size_t len, bool wrapped)
{
	GsXmlOptions opt;
	GsXmlTokens out;
	GsXmlError err;
	Expect		e;
	xmlDoc	   *x;
	int			rc;
	char	   *parse = NULL;
	size_t		plen = len;

	memset(&opt, 0, sizeof(opt));
	opt.weight_attr = "w";
	opt.weight_attr_len = 1;
	opt.read_weight = true;
	opt.missing_weight = 0.0;
	opt.grow = grow_realloc;
	memset(&out, 0, sizeof(out));
	memset(&e, 0, sizeof(e));
	rc = gs_xml_tokenize(doc, len, &opt, &out, &err);

	/* libxml2 parses content wrapped in one root element */
	if (wrapped)
	{
		parse = malloc(len + 16);
		memcpy(parse, "<R>", 3);
		memcpy(parse + 3, doc, len);
		memcpy(parse + 3 + len, "</R>", 4);
		plen = len + 7;
	}
	x = xmlReadMemory(wrapped ? parse : doc, (int) plen, "doc.xml", "UTF-8",
					  XML_PARSE_HUGE | XML_PARSE_NONET | XML_PARSE_NOERROR |
					  XML_PARSE_NOWARNING | XML_PARSE_NOCDATA);
	n_docs++;
	if (x == NULL)
	{
		if (rc != GS_XML_OK)
			n_both_reject++;	/* a bad weight may come before the syntax
								 * error: either way, an error */
		else
		{
			n_lenient++;
			if (getenv("ORACLE_VERBOSE") && (wrapped || getenv("ORACLE_VERBOSE")[0] == '2'))
				fprintf(stderr, "lenient (libxml2 rejects, tokenizer accepts): %.*s\n",
						(int) len, doc);
		}
	}
	else
	{
		xmlNode    *root = xmlDocGetRootElement(x);

		n_accepted++;
		if (wrapped)
			walk(root ? root->children : NULL, root, &e);
		else
			walk(x->children, NULL, &e);
		if (e.bad_weight ? rc != GS_XML_BAD_WEIGHT :
			(rc != GS_XML_OK || out.ntok != e.n ||
			 (e.n && memcmp(out.tok, e.tok, e.n * sizeof(double)) != 0)))
		{
			n_fail++;
			if (n_fail <= 10)
				fprintf(stderr, "MISMATCH rc=%d (%s at %zu) ntok=%zu expected %zu%s\n  doc: %.*s\n",
						rc, err.msg, err.offset, out.ntok, e.n,
						e.bad_weight ? " (bad weight)" : "", (int) len, doc);
		}
		xmlFreeDoc(x);
	}
	free(parse);
	free(e.tok);
	free(out.tok);
	free(out.stack);
}

/*
 * gs_parse_weight's fast path must give strtod's double, bit for bit: random
 * decimal strings of every length, with fractions, exponents, signs and
 * leading zeros.
 */
static void
check_numbers(long count)
{
	long		i,
				bad = 0;

	for (i = 0; i < count; i++)
	{
		char		num[80];
		int			n = 0,
					d;
		double		ours,
					want;

		if (rnd(3) == 0)
			num[n++] = rnd(2) ? '-' : '+';
		int			nint = rnd(4) == 0 ? 0 : 1 + rnd(20);

		for (d = nint; d > 0; d--)
			num[n++] = (char) ('0' + (rnd(5) == 0 ? 0 : rnd(10)));
		if (nint == 0 || rnd(2))
		{
			num[n++] = '.';
			for (d = 1 + rnd(20); d > 0; d--)
				num[n++] = (char) ('0' + rnd(10));
		}
		if (rnd(3) == 0)
			n += sprintf(num + n, "e%d", (int) rnd(61) - 30);
		num[n] = '\0';
		if (!gs_parse_weight(num, n, &ours))
		{
			if (bad < 10)
				fprintf(stderr, "REJECTED valid number %s\n", num);
			bad++;
			continue;
		}
		want = strtod(num, NULL);
		if (memcmp(&ours, &want, sizeof(double)) != 0)
		{
			if (bad < 10)
				fprintf(stderr, "NUMBER %s: got %.17g, strtod %.17g\n", num, ours, want);
			bad++;
		}
	}
	printf("xmltok_oracle: %ld numbers parsed as strtod does, %ld failures\n", count - bad, bad);
	n_fail += bad;
}

static bool
always(void *arg)
{
	(void) arg;
	return true;
}

/* the tokenizer polls for interrupts on long inputs and stops */
static void
check_cancel(void)
{
	size_t		len = (size_t) 12 << 20;
	char	   *doc = malloc(len);
	GsXmlOptions opt;
	GsXmlTokens out;
	GsXmlError	err;
	size_t		i;
	int			rc;

	for (i = 0; i + 4 <= len; i += 4)
		memcpy(doc + i, "<a/>", 4);
	memset(&opt, 0, sizeof(opt));
	opt.weight_attr = "w";
	opt.weight_attr_len = 1;
	opt.read_weight = true;
	opt.grow = grow_realloc;
	opt.interrupted = always;
	memset(&out, 0, sizeof(out));
	rc = gs_xml_tokenize(doc, len, &opt, &out, &err);
	if (rc != GS_XML_CANCELLED)
	{
		fprintf(stderr, "CANCEL: tokenizer returned %d, not GS_XML_CANCELLED\n", rc);
		n_fail++;
	}
	free(out.tok);
	free(out.stack);
	free(doc);
}

int
main(int argc, char **argv)
{
	unsigned long long seed = argc > 1 ? strtoull(argv[1], NULL, 10) : 1;
	long		ndocs = argc > 2 ? atol(argv[2]) : 2000;
	long		i;
	Buf			b = {0};

	rng_state = seed * 6364136223846793005ULL + 1442695040888963407ULL;
	check_numbers(ndocs * 20);
	check_cancel();
	xmlInitParser();
	for (i = 0; i < ndocs; i++)
	{
		bool		document = rnd(3) == 0; /* prolog + one root */
		size_t		m;

		b.n = 0;
		puts_(&b, "");
		if (document)
		{
			if (rnd(4) == 0)
				puts_(&b, "\xEF\xBB\xBF");
			if (rnd(2))
				puts_(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
			if (rnd(3) == 0)
				puts_(&b, "<!-- prolog -->");
			if (rnd(2))
				puts_(&b, "<!DOCTYPE a [\n  <!ELEMENT a ANY>\n  <!-- ] > -->\n  <?pi ]>?>\n  <!ATTLIST b x CDATA \"]>\">\n]>");
			gen_space(&b);
			/* exactly one root element, content of any shape inside */
			puts_(&b, "<a");
			gen_attrs(&b);
			puts_(&b, ">");
			gen_content(&b, 1 + rnd(60), rnd(40), true);
			puts_(&b, "</a>");
			if (rnd(3) == 0)
				puts_(&b, "<!-- epilog --><?pi?>\n");
		}
		else
			gen_content(&b, 1 + rnd(i % 10 == 0 ? 200 : 12), 1 + rnd(i % 10 == 0 ? 3000 : 40), true);
		check(b.d, b.n, !document);

		/* a mutant */
		m = b.n ? rnd((unsigned) b.n) : 0;
		{
			static const char muts[] = "<>&/\"'=-]x ;#";
			char		c = muts[rnd(sizeof(muts) - 1)];

			switch (rnd(3))
			{
				case 0:
					if (b.n)
					{
						memmove(b.d + m, b.d + m + 1, b.n - m - 1);
						b.n--;
					}
					break;
				case 1:
					put(&b, " ", 1);
					memmove(b.d + m + 1, b.d + m, b.n - m - 1);
					b.d[m] = c;
					break;
				default:
					if (b.n)
						b.d[m] = c;
					break;
			}
		}
		check(b.d, b.n, !document);
	}
	printf("xmltok_oracle: %ld documents: libxml2 accepted %ld (all equal unless failures), "
		   "both rejected %ld, only libxml2 rejected %ld, failures %ld\n",
		   n_docs, n_accepted, n_both_reject, n_lenient, n_fail);
	free(b.d);
	xmlCleanupParser();
	return n_fail ? 1 : 0;
}
