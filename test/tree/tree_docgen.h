/*
 * tree_docgen.h
 *	  Random numbers, the XML document generator, test reporting and the
 *	  CPU tokenizer as oracle, shared by tree_test.cu (on the device) and
 *	  the CPU emulations of the kernels run in CI (xml_scan_emu.cpp,
 *	  tree_contract_emu.cpp).  Functions are static inline, so that a file
 *	  using only some of them compiles without unused-function warnings.
 */
#ifndef TREE_DOCGEN_H
#define TREE_DOCGEN_H

#include <stdint.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <string>
#include <vector>

/* ---- random numbers ------------------------------------------------------ */

static uint64_t rng_state = 88172645463325252ULL;

static inline uint64_t
rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static inline uint64_t
rnd_below(uint64_t n)
{
	return rnd() % n;
}

/* ---- document generator -------------------------------------------------- */

struct DocGen
{
	bool		cpu_only = false;	/* a weight the GPU leaves to the CPU */
	bool		doctype = false;	/* a DOCTYPE: the GPU leaves it to the CPU */
	bool		fancy = true;
};

static const char *names[] = {"a", "b", "item", "x:y", "_n", "n-1.2", "\xc3\xa9l"};

static inline std::string
weight_text(DocGen &g)
{
	char		buf[64];

	switch (rnd_below(g.fancy ? 14 : 2))
	{
		case 0:
		case 1:
			snprintf(buf, sizeof(buf), "%d", (int) rnd_below(2001) - 1000);
			return buf;
		case 2:
			snprintf(buf, sizeof(buf), "%d.%03d", (int) rnd_below(200) - 100, (int) rnd_below(1000));
			return buf;
		case 3:
			snprintf(buf, sizeof(buf), " +%de%d ", (int) rnd_below(100), (int) rnd_below(10));
			return buf;
		case 4:
			{
				int			e = (int) rnd_below(25);

				snprintf(buf, sizeof(buf), ".%dE-%d", (int) rnd_below(1000), e);
				if (e > 18)
					g.cpu_only = true;	/* may pass 10^-22 */
			}
			return buf;
		case 5:
			snprintf(buf, sizeof(buf), "%d.", (int) rnd_below(1000));
			return buf;
		case 6:
			snprintf(buf, sizeof(buf), "-0.%020d", (int) rnd_below(1000));	/* > 19 digits? no: zeros */
			return buf;
		case 7:
			snprintf(buf, sizeof(buf), "%llu%llu", (unsigned long long) rnd(), (unsigned long long) rnd_below(100));
			g.cpu_only = true;	/* more digits than the fast path */
			return buf;
		case 8:
			g.cpu_only = true;	/* a reference in the weight */
			return "&#49;5";
		case 9:
			snprintf(buf, sizeof(buf), "1e%d", 20 + (int) rnd_below(300));
			g.cpu_only = true;	/* exponent past 10^22 */
			return buf;
		case 10:
			g.cpu_only = true;	/* not a number: the CPU reports it */
			return rnd_below(2) ? "abc" : "NaN";
		case 11:
			snprintf(buf, sizeof(buf), "\t%d\n", (int) rnd_below(50));
			return buf;
		case 12:
			snprintf(buf, sizeof(buf), "0.000%d", (int) rnd_below(99999));
			return buf;
		default:
			snprintf(buf, sizeof(buf), "-%d.25e-2", (int) rnd_below(99999));
			return buf;
	}
}

static inline std::string
filler(DocGen &g)
{
	if (!g.fancy)
		return rnd_below(3) ? "" : " t ";
	switch (rnd_below(12))
	{
		case 0:
			return "text &lt; &amp; &#x41; &#65; > ] ]] \"'";
		case 1:
			return "<!-- comment with <a> and > and - single - dashes -->";
		case 2:
			return "<![CDATA[ <b w=\"9\"> ]] ]> ]]]]>";
		case 3:
			return "<?pi data <a> ? > ?>";
		case 4:
			return "\n  \t";
		case 5:
			return "<!---->";
		default:
			return "";
	}
}

static inline void
gen_element(DocGen &g, std::string &out, int depth, int max_depth, size_t &budget)
{
	const char *name = names[rnd_below(g.fancy ? 7 : 2)];
	bool		quote2 = rnd_below(2);
	char		q = quote2 ? '\'' : '"';

	out += '<';
	out += name;
	if (g.fancy && rnd_below(3) == 0)
	{
		out += " other=";
		out += q;
		out += quote2 ? "x > \"y\" &amp; /" : "x > 'y' &quot; /";
		out += q;
	}
	if (rnd_below(10) < 8)
	{
		out += rnd_below(4) == 0 && g.fancy ? "  w = " : " w=";
		out += q;
		out += weight_text(g);
		out += q;
	}
	if (g.fancy && rnd_below(4) == 0)
		out += " z:k='1'";
	budget = budget > 0 ? budget - 1 : 0;
	if (depth >= max_depth || budget == 0 || rnd_below(3) == 0)
	{
		out += rnd_below(2) && g.fancy ? " />" : "/>";
		return;
	}
	out += '>';
	int			nchild = 1 + (int) rnd_below(4);

	for (int i = 0; i < nchild && budget > 0; i++)
	{
		out += filler(g);
		gen_element(g, out, depth + 1, max_depth, budget);
	}
	out += filler(g);
	out += "</";
	out += name;
	out += rnd_below(5) == 0 && g.fancy ? " >" : ">";
}

static inline std::string
gen_document(DocGen &g, size_t elements, int max_depth)
{
	std::string out;
	size_t		budget = elements;

	if (g.fancy && rnd_below(4) == 0)
		out += "<?xml version=\"1.0\"?>\n";
	if (g.fancy && rnd_below(30) == 0)
	{
		out += "<!DOCTYPE r [ <!ENTITY e \"x\"> ]>";
		g.doctype = true;
	}
	while (budget > 0)
	{
		out += filler(g);
		gen_element(g, out, 1, max_depth, budget);
	}
	out += filler(g);
	return out;
}

static inline void
mutate(std::string &doc)
{
	static const char junk[] = "<>&\"'-]?/!=; \x01";
	size_t		at = doc.empty() ? 0 : rnd_below(doc.size());

	switch (rnd_below(4))
	{
		case 0:
			if (!doc.empty())
				doc.erase(at, 1);
			break;
		case 1:
			doc.insert(at, 1, junk[rnd_below(sizeof(junk) - 1)]);
			break;
		case 2:
			{
				size_t		p = doc.find("</", at);

				if (p != std::string::npos && p + 2 < doc.size())
					doc[p + 2] = doc[p + 2] == 'a' ? 'b' : 'a';
			}
			break;
		default:
			doc.resize(at);
			break;
	}
}

/* ---- test reporting ----------------------------------------------------- */

static int	npassed,
			nfailed;

static inline void
check(bool ok, const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	printf("%s: ", ok ? "ok" : "FAILED");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	fflush(stdout);
	if (ok)
		npassed++;
	else
		nfailed++;
}

#ifdef GPUSORT_XMLTOK_H
/* ---- xmltok.c, the tokenizers' oracle -------------------------------------- */

static inline void *
grow_realloc(void *arg, void *old, size_t newsize)
{
	(void) arg;
	return realloc(old, newsize);
}

/* xmltok.c's tokens for doc, or false if it rejects the document */
static inline bool
cpu_tokens(const std::string &doc, bool read_weight, std::vector<double> &out)
{
	GsXmlOptions opt;
	GsXmlTokens toks;
	GsXmlError	err;
	int			rc;

	memset(&opt, 0, sizeof(opt));
	memset(&toks, 0, sizeof(toks));
	opt.weight_attr = "w";
	opt.weight_attr_len = 1;
	opt.read_weight = read_weight;
	opt.missing_weight = -0.5;
	opt.abs_sum_max = GS_WEIGHT_ABS_SUM_MAX;
	opt.grow = grow_realloc;
	rc = gs_xml_tokenize(doc.data(), doc.size(), &opt, &toks, &err);
	if (rc == GS_XML_OK)
		out.assign(toks.tok, toks.tok + toks.ntok);
	free(toks.tok);
	free(toks.stack);
	return rc == GS_XML_OK;
}

/* token arrays equal bit for bit (close markers included) */
static inline bool
same_tokens(const std::vector<double> &a, const std::vector<double> &b)
{
	return a.size() == b.size() &&
		(a.empty() || memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

/* a well-formed tree is balanced; the contraction checks that on the GPU */
static inline bool
balanced(const std::vector<double> &tok)
{
	long		d = 0;

	for (double t : tok)
	{
		d += gs_is_close(t) ? -1 : 1;
		if (d < 0)
			return false;
	}
	return d == 0;
}

/*
 * A batch of n small documents (some with an XML declaration, some empty)
 * as one text with the documents' start offsets, and the CPU tokenizer's
 * tokens of all of them, concatenated: what a batched GPU scan must give.
 */
static inline void
gen_batch(int n, std::string &text, std::vector<uint64_t> &starts,
		  std::vector<double> &want)
{
	std::vector<double> one;

	for (int i = 0; i < n; i++)
	{
		DocGen		g;

		g.fancy = false;
		std::string doc = gen_document(g, 1 + rnd_below(10), 4);

		if (rnd_below(50) == 0)
			doc = "<?xml version=\"1.0\"?>" + doc;
		if (rnd_below(100) == 0)
			doc = "";
		cpu_tokens(doc, true, one);
		want.insert(want.end(), one.begin(), one.end());
		starts.push_back(text.size());
		text += doc;
	}
}
#endif

#endif							/* TREE_DOCGEN_H */
