/*-------------------------------------------------------------------------
 *
 * xml_scan.cu
 *	  GPU tokenizer for tree_reduce: serialized XML -> the XML representation
 *	  of src/tree/treerep.h, the same token array that src/tree/xmltok.c produces.
 *
 * xmltok.c stays the oracle and the fallback.  This scanner is
 * conservative: on every input it either produces exactly xmltok's tokens
 * or raises a flag (GSK_XML_*), and the caller then runs xmltok.c, which
 * reports the precise error or handles what the scanner leaves to it.  It
 * never accepts a document that xmltok rejects.  Left to the CPU: a
 * DOCTYPE (its internal subset would need a parser of its own), references
 * inside the weight attribute's value, and weights outside the exact fast
 * path below; everything else xmltok accepts is handled here.
 *
 * Where markup is, is a question of state: '<' inside a comment, a CDATA
 * section, a PI or an attribute value is not a tag.  The scan finds the
 * state at every byte with a parallel prefix over finite-state transition
 * functions:
 *
 *	A. The input is cut into chunks of CHUNK bytes.  One thread runs the
 *	   16-state automaton below over its chunk from every start state at
 *	   once, which gives the chunk's transition function as 16 nibbles of a
 *	   uint64 (most bytes leave every state where it is and cost one test).
 *	   An exclusive scan (CUB) composes them: chunk c's true start state is
 *	   the prefix applied to TEXT.
 *	B. Each thread runs its chunk again from its true state.  Whenever '<'
 *	   starts markup in TEXT, the thread owning that byte parses the whole
 *	   construct with xmltok's rules (names, attributes, quotes, references,
 *	   PI targets, the weight) and counts its tokens; TEXT bytes are checked
 *	   (control characters, "]]>", references).  An exclusive scan of the
 *	   (tokens, start tags) counts gives every chunk its output offset.
 *	C. The same walk writes the tokens, and for every token the depth of
 *	   its element (2 * start tags before - tokens before) and the position
 *	   of its tag's name; CDATA at depth 0 and documents of a batch that do
 *	   not end at depth 0 raise flags here.
 *	D. End tags must name their start tags.  A stable sort of the tokens by
 *	   depth (CUB's radix sort, 32-bit keys) puts every end tag right after
 *	   its start tag (in a balanced array, the tags of one depth alternate
 *	   start, end, start, end), where one thread compares the two names byte
 *	   by byte.  Balance itself (no end tag without a start tag,
 *	   none left open) is checked by the contraction, which reports a
 *	   malformed array.
 *
 * The automaton, over the bytes in TEXT, tags, attribute values, comments,
 * CDATA sections and PIs, encodes xmltok's terminators exactly: a comment
 * body starts after "<!--" (SKIP states), "--" inside it must be followed
 * by '>', a CDATA section ends at the first "]]>", a PI at the first "?>",
 * a tag at the first '>' outside quotes, and '<' inside a tag is an error.
 *
 * The weight fast path: optional XML white space, [+-]? digits with an
 * optional fraction, an optional exponent, at most 19 significant digits
 * forming an integer M < 2^53 and a decimal exponent e with |e| <= 22.
 * Then M and 10^|e| are exact doubles and M * 10^e (or M / 10^-e) is one
 * correctly rounded IEEE operation, i.e. strtod's result (Clinger's fast
 * path).  Such weights are below 2^53 * 10^22, so no document reaches
 * GS_WEIGHT_ABS_SUM_MAX and the scanner needs no sum check.
 *
 * A batch is several documents back to back (an aggregate's rows); doc
 * starts are given, and each document must be complete on its own (state
 * TEXT and depth 0 at every boundary) with its own XML-declaration rule.
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>
#include <string.h>

/*
 * GSK_XML_SCAN_EMULATE: only the kernels and their device functions, for
 * test/tree/cpu/xml_scan_emu.cpp, which runs them thread by thread on the CPU so
 * that CI (no GPU) tests the scanner's logic against xmltok.c.
 */
#ifndef GSK_XML_SCAN_EMULATE
#include <cuda_runtime.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "gsk_internal.cuh"
#endif

#include "gpusort_kernels.h"
#include "tree/treerep.h"
#include "tree/xmlchar.h"

#define GSK_EXPORT __attribute__((visibility("default")))

#define CHUNK		256			/* bytes per thread */
#define THREADS		128

/* automaton states */
enum
{
	S_TEXT = 0,
	S_TAG,						/* in <...> outside quotes */
	S_SQ,						/* in '...' */
	S_DQ,						/* in "..." */
	S_SK3,						/* the "!--" of "<!--" still to come */
	S_SK2,
	S_SK1,
	S_CMT,						/* comment body */
	S_CMT1,						/* ... after '-' */
	S_CMT2,						/* ... after "--": only '>' may follow */
	S_CD,						/* CDATA section */
	S_CD1,						/* ... after ']' */
	S_CD2,						/* ... after "]]" */
	S_PI,						/* processing instruction */
	S_PIQ,						/* ... after '?' */
	S_ERR						/* not well formed: stays */
};

/* byte classes for the automaton */
enum
{
	K_OTHER = 0,
	K_GT,
	K_DQ,
	K_SQ,
	K_DASH,
	K_RBRACKET,
	K_QMARK,
	K_LT_TAG,					/* '<' starting a tag (or anything else) */
	K_LT_CMT,					/* "<!--" */
	K_LT_CDATA,					/* "<![CDATA[" */
	K_LT_PI,					/* "<?" */
	K_LT_BAD,					/* "<!" starting anything else (DOCTYPE) */
	NCLASSES
};

__host__ __device__ constexpr int
next_state(int s, int k)
{
	switch (s)
	{
		case S_TEXT:
			return k == K_LT_TAG ? S_TAG : k == K_LT_CMT ? S_SK3 :
				k == K_LT_CDATA ? S_CD : k == K_LT_PI ? S_PI :
				k == K_LT_BAD ? S_ERR : S_TEXT;
		case S_TAG:
			return k == K_DQ ? S_DQ : k == K_SQ ? S_SQ : k == K_GT ? S_TEXT :
				k >= K_LT_TAG ? S_ERR : S_TAG;
		case S_SQ:
			return k == K_SQ ? S_TAG : k >= K_LT_TAG ? S_ERR : S_SQ;
		case S_DQ:
			return k == K_DQ ? S_TAG : k >= K_LT_TAG ? S_ERR : S_DQ;
		case S_SK3:
			return S_SK2;
		case S_SK2:
			return S_SK1;
		case S_SK1:
			return S_CMT;
		case S_CMT:
		case S_CMT1:
			return k == K_DASH ? (s == S_CMT ? S_CMT1 : S_CMT2) : S_CMT;
		case S_CMT2:
			return k == K_GT ? S_TEXT : S_ERR;
		case S_CD:
			return k == K_RBRACKET ? S_CD1 : S_CD;
		case S_CD1:
			return k == K_RBRACKET ? S_CD2 : S_CD;
		case S_CD2:
			return k == K_GT ? S_TEXT : k == K_RBRACKET ? S_CD2 : S_CD;
		case S_PI:
			return k == K_QMARK ? S_PIQ : S_PI;
		case S_PIQ:
			return k == K_GT ? S_TEXT : k == K_QMARK ? S_PIQ : S_PI;
		default:
			return S_ERR;
	}
}

/* the transition function of class k over all 16 states, as nibbles */
__host__ __device__ constexpr uint64_t
class_map(int k)
{
	uint64_t	m = 0;

	for (int s = 0; s < 16; s++)
		m |= (uint64_t) next_state(s, k) << (4 * s);
	return m;
}

struct ClassMaps
{
	uint64_t	m[NCLASSES];
};

__host__ __device__ constexpr ClassMaps
make_class_maps()
{
	ClassMaps	c = {};

	for (int k = 0; k < NCLASSES; k++)
		c.m[k] = class_map(k);
	return c;
}

__constant__ ClassMaps class_maps = make_class_maps();

/* identity function: state s maps to s */
#define IDENTITY_MAP	UINT64_C(0xfedcba9876543210)

/* "first, then second" */
__host__ __device__ __forceinline__ uint64_t
compose(uint64_t first, uint64_t second)
{
	uint64_t	r = 0;

#pragma unroll
	for (int s = 0; s < 16; s++)
		r |= ((second >> (4 * ((first >> (4 * s)) & 15))) & 15) << (4 * s);
	return r;
}

struct ComposeOp
{
	__host__ __device__ __forceinline__ uint64_t operator() (uint64_t a, uint64_t b) const
	{
		return compose(a, b);
	}
};

/* (tokens, start tags) of a chunk, and their scan */
struct Counts
{
	unsigned long long tok;
	unsigned long long open;
};

struct CountsSum
{
	__host__ __device__ __forceinline__ Counts operator() (const Counts &a, const Counts &b) const
	{
		Counts		r;

		r.tok = a.tok + b.tok;
		r.open = a.open + b.open;
		return r;
	}
};

/* the kernels' view of a scan */
struct ScanArgs
{
	const unsigned char *text;
	size_t		nbytes;
	const uint64_t *doc_start;	/* ndocs offsets, doc_start[0] == 0 */
	int			ndocs;
	size_t		nchunks;
	char		attr[GSK_XML_ATTR_MAX];
	int			attr_len;
	int			read_weight;
	double		missing_weight;

	uint64_t   *maps;			/* nchunks + 1: transition functions */
	uint64_t   *smaps;			/* ... their exclusive scan */
	Counts	   *counts;			/* nchunks + 1: tokens and start tags */
	Counts	   *scounts;		/* ... their exclusive scan */
	uint32_t   *flags;			/* one word */

	/* pass C output */
	double	   *tok;
	uint32_t   *depth;			/* depth of each token's element: sort key */
	uint64_t   *name;			/* (name offset << 16) | name length */
	size_t		ntok;
};

__device__ __forceinline__ void
raise_flag(const ScanArgs &a, uint32_t f)
{
	atomicOr(a.flags, f);
}

/* ---- byte classes and small parsers (xmltok.c's rules) ------------------ */

__device__ __forceinline__ bool
is_space(unsigned c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

__device__ __forceinline__ bool
is_namestart(unsigned c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
		c == ':' || c >= 0x80;
}

__device__ __forceinline__ bool
is_namechar(unsigned c)
{
	return is_namestart(c) || (c >= '0' && c <= '9') || c == '-' || c == '.';
}

/* a control character that XML forbids */
__device__ __forceinline__ bool
is_bad_control(unsigned c)
{
	return c < 0x20 && c != '\t' && c != '\n' && c != '\r';
}

__device__ __forceinline__ bool
has_prefix(const unsigned char *b, size_t pos, size_t end, const char *s, int n)
{
	if (pos > end || end - pos < (size_t) n)
		return false;
	for (int i = 0; i < n; i++)
		if (b[pos + i] != (unsigned char) s[i])
			return false;
	return true;
}

__device__ __forceinline__ size_t
name_len(const unsigned char *b, size_t pos, size_t end)
{
	size_t		p = pos;

	if (p >= end || !is_namestart(b[p]))
		return 0;
	for (p++; p < end && is_namechar(b[p]); p++)
		;
	return p - pos;
}

/* end of the valid reference at pos ('&'), or 0 if it is not one */
__device__ size_t
ref_end(const unsigned char *b, size_t pos, size_t end)
{
	size_t		p = pos + 1;

	if (p < end && b[p] == '#')
	{
		unsigned long cp;

		p = gs_xml_char_ref(b, p + 1, end, &cp);
		return p != 0 && gs_is_xml_char(cp) ? p : 0;
	}
	if (has_prefix(b, p, end, "lt;", 3) || has_prefix(b, p, end, "gt;", 3))
		return p + 3;
	if (has_prefix(b, p, end, "amp;", 4))
		return p + 4;
	if (has_prefix(b, p, end, "quot;", 5) || has_prefix(b, p, end, "apos;", 5))
		return p + 5;
	return 0;
}

/* powers of ten that are exact doubles */
__constant__ double exact_pow10[23] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8,
	1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
	1e20, 1e21, 1e22};

/* the fast path of the header comment; false: leave it to strtod */
__device__ bool
parse_weight(const unsigned char *b, size_t s, size_t e, double *w)
{
	bool		neg = false;
	uint64_t	m = 0;
	int			ndig = 0,
				sig = 0,
				scale = 0;
	long		ex = 0;
	size_t		p;
	double		v;

	while (s < e && is_space(b[s]))
		s++;
	while (e > s && is_space(b[e - 1]))
		e--;
	if (s == e)
		return false;
	p = s;
	if (b[p] == '+' || b[p] == '-')
		neg = b[p] == '-', p++;
	for (; p < e && b[p] >= '0' && b[p] <= '9'; p++, ndig++)
	{
		if (m == 0 && b[p] == '0')
			continue;			/* leading zeros */
		m = m * 10 + (b[p] - '0');
		if (++sig > 19)
			return false;
	}
	if (p < e && b[p] == '.')
	{
		for (p++; p < e && b[p] >= '0' && b[p] <= '9'; p++, ndig++)
		{
			scale++;
			if (m == 0 && b[p] == '0')
				continue;
			m = m * 10 + (b[p] - '0');
			if (++sig > 19)
				return false;
		}
	}
	if (ndig == 0)
		return false;
	if (p < e && (b[p] == 'e' || b[p] == 'E'))
	{
		bool		eneg = false;
		int			nd = 0;

		p++;
		if (p < e && (b[p] == '+' || b[p] == '-'))
			eneg = b[p] == '-', p++;
		for (; p < e && b[p] >= '0' && b[p] <= '9'; p++, nd++)
			if (ex < 100000)
				ex = ex * 10 + (b[p] - '0');
		if (nd == 0)
			return false;
		if (eneg)
			ex = -ex;
	}
	if (p != e)
		return false;
	if (m > ((uint64_t) 1 << 53))
		return false;
	ex -= scale;
	if (m == 0)
		v = 0.0;				/* any exponent: strtod gives (signed) zero */
	else if (ex >= 0 && ex <= 22)
		v = (double) m * exact_pow10[ex];
	else if (ex < 0 && ex >= -22)
		v = (double) m / exact_pow10[-ex];
	else
		return false;
	*w = neg ? -v : v;
	return true;
}

/* what the owner of a '<' found */
struct Tag
{
	int			ntok;			/* tokens: 0 none, 1 start or end, 2 empty */
	bool		is_end;
	size_t		name_pos;
	size_t		name_len;
	double		w;
};

/*
 * Start tag at pos, within the document ending at end (xmltok's
 * scan_start_tag).  False: not something this scanner can prove xmltok
 * accepts with the same weight; *flag says why.
 */
__device__ bool
parse_start_tag(const ScanArgs &a, size_t pos, size_t end, Tag *t, uint32_t *flag)
{
	const unsigned char *b = a.text;
	size_t		n = name_len(b, pos + 1, end);
	size_t		p;
	bool		have = false;

	*flag = GSK_XML_SYNTAX;
	if (n == 0)
		return false;
	t->is_end = false;
	t->name_pos = pos + 1;
	t->name_len = n;
	t->w = a.missing_weight;
	p = pos + 1 + n;
	for (;;)
	{
		size_t		q = p,
					attr,
					an,
					vstart;
		unsigned char quote;

		while (q < end && is_space(b[q]))
			q++;
		if (q >= end)
			return false;
		if (b[q] == '>')
		{
			t->ntok = 1;
			return true;
		}
		if (b[q] == '/')
		{
			if (q + 1 >= end || b[q + 1] != '>')
				return false;
			t->ntok = 2;
			return true;
		}
		attr = q;
		an = name_len(b, attr, end);
		if (an == 0 || attr == p)
			return false;
		q = attr + an;
		while (q < end && is_space(b[q]))
			q++;
		if (q >= end || b[q] != '=')
			return false;
		q++;
		while (q < end && is_space(b[q]))
			q++;
		if (q >= end || (b[q] != '"' && b[q] != '\''))
			return false;
		quote = b[q];
		vstart = ++q;
		bool		has_ref = false;

		for (;;)
		{
			if (q >= end)
				return false;
			unsigned	c = b[q];

			if (c == quote)
				break;
			if (c == '<' || is_bad_control(c))
				return false;
			if (c == '&')
			{
				size_t		r = ref_end(b, q, end);

				if (r == 0)
					return false;
				has_ref = true;
				q = r;
			}
			else
				q++;
		}
		if (a.read_weight && an == (size_t) a.attr_len)
		{
			bool		same = true;

			for (int i = 0; i < a.attr_len; i++)
				same = same && b[attr + i] == (unsigned char) a.attr[i];
			if (same)
			{
				if (have || has_ref || !parse_weight(b, vstart, q, &t->w))
				{
					*flag = have ? GSK_XML_SYNTAX : GSK_XML_WEIGHT;
					return false;
				}
				have = true;
			}
		}
		p = q + 1;
	}
}

/* </name S? > at pos (xmltok's scan_end_tag, less the name match) */
__device__ bool
parse_end_tag(const ScanArgs &a, size_t pos, size_t end, Tag *t)
{
	const unsigned char *b = a.text;
	size_t		n = name_len(b, pos + 2, end);
	size_t		p;

	if (n == 0)
		return false;
	for (p = pos + 2 + n; p < end && is_space(b[p]); p++)
		;
	if (p >= end || b[p] != '>')
		return false;
	t->ntok = 1;
	t->is_end = true;
	t->name_pos = pos + 2;
	t->name_len = n;
	return true;
}

/* <?target ... at pos: the target rules of xmltok's scan_pi */
__device__ bool
check_pi(const unsigned char *b, size_t pos, size_t end, size_t doc_start)
{
	size_t		p = pos + 2;
	size_t		n = name_len(b, p, end);

	if (n == 0)
		return false;
	if (n == 3 && (b[p] | 0x20) == 'x' && (b[p + 1] | 0x20) == 'm' &&
		(b[p + 2] | 0x20) == 'l' && pos != doc_start)
		return false;
	p += n;
	if (p < end && !is_space(b[p]) && !has_prefix(b, p, end, "?>", 2))
		return false;
	return true;
}

/* automaton class of byte i (looking ahead at '<') */
__device__ __forceinline__ int
byte_class(const unsigned char *b, size_t i, size_t nbytes, unsigned c)
{
	switch (c)
	{
		case '>':
			return K_GT;
		case '"':
			return K_DQ;
		case '\'':
			return K_SQ;
		case '-':
			return K_DASH;
		case ']':
			return K_RBRACKET;
		case '?':
			return K_QMARK;
		case '<':
			if (i + 1 < nbytes && b[i + 1] == '?')
				return K_LT_PI;
			if (i + 1 < nbytes && b[i + 1] == '!')
			{
				if (has_prefix(b, i, nbytes, "<!--", 4))
					return K_LT_CMT;
				if (has_prefix(b, i, nbytes, "<![CDATA[", 9))
					return K_LT_CDATA;
				return K_LT_BAD;
			}
			return K_LT_TAG;
		default:
			return K_OTHER;
	}
}

/* ---- pass A: transition function of each chunk --------------------------- */

__global__ void __launch_bounds__(THREADS)
chunk_maps(ScanArgs a)
{
	size_t		c = (size_t) blockIdx.x * THREADS + threadIdx.x;

	if (c > a.nchunks)
		return;

	const unsigned char *b = a.text;
	size_t		from = c * CHUNK;
	size_t		to = from + CHUNK < a.nbytes ? from + CHUNK : a.nbytes;
	uint64_t	map = IDENTITY_MAP;

	/*
	 * Transient states (SKIP, "-", "]", "?") also move on ordinary bytes;
	 * as long as no start state has reached one, ordinary bytes change
	 * nothing.  The identity map has every state, transient ones included.
	 * (The extra chunk c == nchunks is empty: the identity, so that the
	 * exclusive scan's last element is the whole composition.)
	 */
	bool		transient = true;

	for (size_t i = from; i < to; i++)
	{
		unsigned	ch = b[i];
		int			k = byte_class(b, i, a.nbytes, ch);

		if (k == K_OTHER && !transient)
			continue;
		map = compose(map, class_maps.m[k]);
		transient = false;
#pragma unroll
		for (int s = 0; s < 16; s++)
		{
			int			st = (int) ((map >> (4 * s)) & 15);

			transient |= (st >= S_SK3 && st <= S_SK1) || st == S_CMT1 ||
				st == S_CMT2 || st == S_CD1 || st == S_CD2 || st == S_PIQ;
		}
	}
	a.maps[c] = map;
}

/* ---- passes B and C: walk a chunk from its true state -------------------- */

/* index of the document containing byte pos */
__device__ __forceinline__ int
doc_of(const ScanArgs &a, size_t pos)
{
	int			lo = 0,
				hi = a.ndocs - 1;

	while (lo < hi)
	{
		int			mid = (lo + hi + 1) / 2;

		if (a.doc_start[mid] <= pos)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* the document the walk is in */
struct DocSpan
{
	int			d;				/* its index */
	size_t		begin;
	size_t		end;
	size_t		decl_pos;		/* where an XML declaration may stand */
};

/* document d, whose bytes start at begin (a BOM moves its declaration) */
__device__ __forceinline__ void
enter_doc(const ScanArgs &a, int d, size_t begin, DocSpan *doc)
{
	doc->d = d;
	doc->begin = begin;
	doc->end = d + 1 < a.ndocs ? a.doc_start[d + 1] : a.nbytes;
	doc->decl_pos = has_prefix(a.text, begin, doc->end, "\xEF\xBB\xBF", 3) ?
		begin + 3 : begin;
}

/*
 * A document that ends where the walk stands is not complete: not in TEXT,
 * or (once the counts are known) inside an element.
 */
template <bool EMIT>
__device__ __forceinline__ bool
doc_incomplete(int state, unsigned long long ntok, unsigned long long nopen)
{
	return state != S_TEXT || (EMIT && 2 * nopen != ntok);
}

/* byte i of text that xmltok's scan_text rejects */
__device__ __forceinline__ bool
bad_text_byte(const unsigned char *b, size_t i, size_t doc_end, unsigned ch)
{
	return is_bad_control(ch) ||
		(ch == ']' && has_prefix(b, i, doc_end, "]]>", 3)) ||
		(ch == '&' && ref_end(b, i, doc_end) == 0);
}

/*
 * The '<' at i, of class k, starts markup in TEXT: the flags its construct
 * raises, and in *t the tag it is (t->ntok == 0: no tokens).
 */
template <bool EMIT>
__device__ __forceinline__ uint32_t
scan_markup(const ScanArgs &a, size_t i, int k, const DocSpan &doc,
			unsigned long long ntok, unsigned long long nopen, Tag *t)
{
	const unsigned char *b = a.text;
	uint32_t	flag = 0;
	uint32_t	why = GSK_XML_SYNTAX;

	t->ntok = 0;
	if (k == K_LT_TAG)
	{
		bool		ok = (i + 1 < doc.end && b[i + 1] == '/') ?
			parse_end_tag(a, i, doc.end, t) :
			parse_start_tag(a, i, doc.end, t, &why);

		if (!ok)
			flag |= why;
	}
	else if (k == K_LT_PI)
	{
		if (!check_pi(b, i, doc.end, doc.decl_pos))
			flag |= GSK_XML_SYNTAX;
	}
	else if (k == K_LT_CDATA)
	{
		if (EMIT && 2 * nopen == ntok)
			flag |= GSK_XML_SYNTAX;		/* CDATA outside of an element */
	}
	else if (k == K_LT_BAD)
		flag |= has_prefix(b, i, doc.end, "<!DOCTYPE", 9) ?
			GSK_XML_DOCTYPE : GSK_XML_SYNTAX;
	return flag;
}

/* token i with what pass D needs of it: its depth (the sort key) and name */
__device__ __forceinline__ void
put_token(const ScanArgs &a, unsigned long long i, double w, uint32_t depth,
		  uint64_t nm)
{
	a.tok[i] = w;
	a.depth[i] = depth;
	a.name[i] = nm;
}

/* pass C: t's tokens at ntok; the flags of a tag the output cannot take */
__device__ __forceinline__ uint32_t
emit_tag(const ScanArgs &a, const Tag &t, unsigned long long &ntok,
		 unsigned long long &nopen)
{
	uint64_t	nm;

	if (t.name_len >= 0xffff || t.name_pos >= ((uint64_t) 1 << 47))
		return GSK_XML_SYNTAX;
	nm = ((uint64_t) t.name_pos << 16) | t.name_len;
	if (t.is_end)
	{
		long long	depth = 2 * (long long) nopen - (long long) ntok;

		if (depth <= 0)
			return GSK_XML_SYNTAX;	/* end tag without start tag */
		put_token(a, ntok, gs_close_token(), (uint32_t) depth, nm);
		ntok++;
	}
	else
	{
		uint32_t	depth = (uint32_t) (2 * (nopen + 1) - (ntok + 1));

		put_token(a, ntok, t.w, depth, nm);
		ntok++;
		nopen++;
		if (t.ntok == 2)
		{
			put_token(a, ntok, gs_close_token(), depth, nm);
			ntok++;
		}
	}
	return 0;
}

template <bool EMIT>
__global__ void __launch_bounds__(THREADS)
chunk_walk(ScanArgs a)
{
	size_t		c = (size_t) blockIdx.x * THREADS + threadIdx.x;

	if (c >= a.nchunks)
	{
		/* the extra element, so that the count scan ends with the totals */
		if (!EMIT && c == a.nchunks)
			a.counts[c].tok = a.counts[c].open = 0;
		return;
	}

	const unsigned char *b = a.text;
	size_t		from = c * CHUNK;
	size_t		to = from + CHUNK < a.nbytes ? from + CHUNK : a.nbytes;
	int			state = (int) ((a.smaps[c] >> (4 * S_TEXT)) & 15);
	int			d = doc_of(a, from);
	DocSpan		doc;
	unsigned long long ntok = 0,
				nopen = 0;
	uint32_t	flag = 0;

	enter_doc(a, d, a.doc_start[d], &doc);
	if (EMIT)
	{
		ntok = a.scounts[c].tok;
		nopen = a.scounts[c].open;
	}
	if (state == S_ERR)
		flag |= GSK_XML_SYNTAX;
	/* a document of a batch starting here: the previous one must be complete */
	if (d > 0 && from == doc.begin && doc_incomplete<EMIT>(state, ntok, nopen))
		flag |= GSK_XML_SYNTAX;

	for (size_t i = from; i < to && flag == 0; i++)
	{
		unsigned	ch = b[i];

		while (i == doc.end && doc.d + 1 < a.ndocs)
		{
			if (doc_incomplete<EMIT>(state, ntok, nopen))
				flag |= GSK_XML_SYNTAX;
			enter_doc(a, doc.d + 1, i, &doc);
		}
		if (flag)
			break;
		if (state != S_TEXT)
		{
			state = next_state(state, byte_class(b, i, a.nbytes, ch));
			if (state == S_ERR)
				flag |= GSK_XML_SYNTAX;
			continue;
		}
		if (ch != '<')
		{
			if (bad_text_byte(b, i, doc.end, ch))
				flag |= GSK_XML_SYNTAX;
			continue;
		}

		int			k = byte_class(b, i, doc.end, ch);
		Tag			t;

		flag |= scan_markup<EMIT>(a, i, k, doc, ntok, nopen, &t);
		state = next_state(state, k);

		if (flag || t.ntok == 0)
			continue;
		if (EMIT)
			flag |= emit_tag(a, t, ntok, nopen);
		else
		{
			ntok += t.ntok;
			nopen += t.is_end ? 0 : 1;
		}
	}
	if (flag)
		raise_flag(a, flag);
	if (!EMIT)
	{
		a.counts[c].tok = ntok;
		a.counts[c].open = nopen;
	}
}

/* ---- pass D: every end tag names its start tag --------------------------- */

__global__ void
iota_rows(uint32_t *rows, size_t n)
{
	size_t		i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		rows[i] = (uint32_t) i;
}

__global__ void
check_names(ScanArgs a, const uint32_t *keys, const uint32_t *rows)
{
	size_t		i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= a.ntok)
		return;

	uint32_t	r = rows[i];

	if (!gs_is_close(a.tok[r]))
		return;
	if (i == 0 || keys[i - 1] != keys[i] || gs_is_close(a.tok[rows[i - 1]]))
	{
		raise_flag(a, GSK_XML_SYNTAX);
		return;
	}

	uint64_t	n1 = a.name[r],
				n0 = a.name[rows[i - 1]];
	size_t		len = n1 & 0xffff;

	if ((n0 & 0xffff) != len)
	{
		raise_flag(a, GSK_XML_SYNTAX);
		return;
	}
	const unsigned char *p1 = a.text + (n1 >> 16);
	const unsigned char *p0 = a.text + (n0 >> 16);

	for (size_t j = 0; j < len; j++)
		if (p1[j] != p0[j])
		{
			raise_flag(a, GSK_XML_SYNTAX);
			return;
		}
}

#ifndef GSK_XML_SCAN_EMULATE

/* ---- host side ----------------------------------------------------------- */

static size_t
align_up(size_t x)
{
	return (x + 255) & ~(size_t) 255;
}

/* scratch of the count pass: maps, counts, flags, CUB's scan space */
struct CountLayout
{
	size_t		maps,
				smaps,
				counts,
				scounts,
				flags,
				cub,
				cub_bytes,
				end;
};

static CountLayout
count_layout(size_t nchunks)
{
	CountLayout l;
	size_t		b1 = 0,
				b2 = 0;

	cub::DeviceScan::ExclusiveScan(NULL, b1, (uint64_t *) NULL, (uint64_t *) NULL,
								   ComposeOp(), (uint64_t) IDENTITY_MAP,
								   (int) (nchunks + 1));
	cub::DeviceScan::ExclusiveScan(NULL, b2, (Counts *) NULL, (Counts *) NULL,
								   CountsSum(), Counts(), (int) (nchunks + 1));
	l.maps = 0;
	l.smaps = align_up(l.maps + (nchunks + 1) * sizeof(uint64_t));
	l.counts = align_up(l.smaps + (nchunks + 1) * sizeof(uint64_t));
	l.scounts = align_up(l.counts + (nchunks + 1) * sizeof(Counts));
	l.flags = align_up(l.scounts + (nchunks + 1) * sizeof(Counts));
	l.cub = align_up(l.flags + sizeof(uint32_t));
	l.cub_bytes = b1 > b2 ? b1 : b2;
	l.end = align_up(l.cub + l.cub_bytes);
	return l;
}

/* the emit pass's scratch: depths and rows (double-buffered), names */
struct EmitLayout
{
	size_t		depth,
				depth2,
				rows,
				rows2,
				name,
				sort,
				sort_bytes,
				end;
};

static EmitLayout
emit_layout(size_t base, size_t ntok)
{
	EmitLayout	l;
	cub::DoubleBuffer<uint32_t> k(NULL, NULL),
				v(NULL, NULL);

	l.depth = align_up(base);
	l.depth2 = align_up(l.depth + ntok * sizeof(uint32_t));
	l.rows = align_up(l.depth2 + ntok * sizeof(uint32_t));
	l.rows2 = align_up(l.rows + ntok * sizeof(uint32_t));
	l.name = align_up(l.rows2 + ntok * sizeof(uint32_t));
	l.sort = align_up(l.name + ntok * sizeof(uint64_t));
	l.sort_bytes = 0;
	cub::DeviceRadixSort::SortPairs(NULL, l.sort_bytes, k, v, (int) ntok);
	l.end = align_up(l.sort + l.sort_bytes);
	return l;
}

static size_t
chunks_of(size_t nbytes)
{
	return (nbytes + CHUNK - 1) / CHUNK;
}

extern "C" GSK_EXPORT size_t
gsk_xml_scan_temp_bytes(size_t nbytes)
{
	return count_layout(chunks_of(nbytes)).end;
}

extern "C" GSK_EXPORT size_t
gsk_xml_emit_temp_bytes(size_t ntok)
{
	return emit_layout(0, ntok).end;
}

static int
fill_args(const GskXmlScan *s, void *d_temp, ScanArgs *a, CountLayout *cl)
{
	char	   *t = (char *) d_temp;

	memset(a, 0, sizeof(*a));
	if (s->attr_len < 0 || s->attr_len > GSK_XML_ATTR_MAX || s->ndocs < 1 ||
		s->nbytes >= ((size_t) 1 << 47) || chunks_of(s->nbytes) >= ((size_t) 1 << 31))
		return gsk_fail_msg(cudaErrorInvalidValue, "gsk_xml_scan: bad arguments");
	a->text = (const unsigned char *) s->d_text;
	a->nbytes = s->nbytes;
	a->doc_start = s->d_doc_start;
	a->ndocs = s->ndocs;
	a->nchunks = chunks_of(s->nbytes);
	memcpy(a->attr, s->attr, s->attr_len);
	a->attr_len = s->attr_len;
	a->read_weight = s->read_weight;
	a->missing_weight = s->missing_weight;
	*cl = count_layout(a->nchunks);
	a->maps = (uint64_t *) (t + cl->maps);
	a->smaps = (uint64_t *) (t + cl->smaps);
	a->counts = (Counts *) (t + cl->counts);
	a->scounts = (Counts *) (t + cl->scounts);
	a->flags = (uint32_t *) (t + cl->flags);
	return 0;
}

extern "C" GSK_EXPORT int
gsk_xml_scan_count(const GskXmlScan *s, void *d_temp, size_t temp_bytes,
				   GskXmlCount *h_out, void *stream)
{
	ScanArgs	a;
	CountLayout cl;
	cudaStream_t st = (cudaStream_t) stream;
	cudaError_t err;
	unsigned	blocks;
	int			rc;

	if ((rc = fill_args(s, d_temp, &a, &cl)) != 0)
		return rc;
	if (temp_bytes < cl.end)
		return gsk_fail_msg(cudaErrorInvalidValue, "gsk_xml_scan_count: scratch too small");
	blocks = (unsigned) ((a.nchunks + 1 + THREADS - 1) / THREADS);

	if ((err = cudaMemsetAsync(a.flags, 0, sizeof(uint32_t), st)) != cudaSuccess)
		return gsk_fail(err, "xml scan: clearing flags");
	chunk_maps<<<blocks, THREADS, 0, st>>>(a);
	if ((rc = gsk_check_launch("xml scan: chunk automata")) != 0)
		return rc;
	{
		size_t		cub_bytes = cl.cub_bytes;

		err = cub::DeviceScan::ExclusiveScan((char *) d_temp + cl.cub, cub_bytes,
											 a.maps, a.smaps, ComposeOp(),
											 (uint64_t) IDENTITY_MAP,
											 (int) (a.nchunks + 1), st);
		if (err != cudaSuccess)
			return gsk_fail(err, "xml scan: scan of the automata");
	}
	chunk_walk<false><<<blocks, THREADS, 0, st>>>(a);
	if ((rc = gsk_check_launch("xml scan: counting tags")) != 0)
		return rc;
	{
		size_t		cub_bytes = cl.cub_bytes;

		err = cub::DeviceScan::ExclusiveScan((char *) d_temp + cl.cub, cub_bytes,
											 a.counts, a.scounts, CountsSum(),
											 Counts(), (int) (a.nchunks + 1), st);
		if (err != cudaSuccess)
			return gsk_fail(err, "xml scan: scan of the counts");
	}
	if ((err = cudaMemcpyAsync(&h_out->ntok, &a.scounts[a.nchunks].tok, sizeof(uint64_t),
							   cudaMemcpyDeviceToHost, st)) != cudaSuccess ||
		(err = cudaMemcpyAsync(&h_out->nelements, &a.scounts[a.nchunks].open, sizeof(uint64_t),
							   cudaMemcpyDeviceToHost, st)) != cudaSuccess ||
		(err = cudaMemcpyAsync(&h_out->final_map, a.smaps + a.nchunks, sizeof(uint64_t),
							   cudaMemcpyDeviceToHost, st)) != cudaSuccess ||
		(err = cudaMemcpyAsync(&h_out->flags, a.flags, sizeof(uint32_t),
							   cudaMemcpyDeviceToHost, st)) != cudaSuccess)
		return gsk_fail(err, "xml scan: copying the counts");
	return 0;
}

extern "C" GSK_EXPORT int
gsk_xml_scan_emit(const GskXmlScan *s, void *d_temp, size_t temp_bytes,
				  void *d_emit, size_t emit_bytes, double *d_tok, size_t ntok,
				  uint32_t *h_flags, void *stream)
{
	ScanArgs	a;
	CountLayout cl;
	EmitLayout	el;
	cudaStream_t st = (cudaStream_t) stream;
	cudaError_t err;
	char	   *t = (char *) d_emit;
	int			rc;

	if ((rc = fill_args(s, d_temp, &a, &cl)) != 0)
		return rc;
	el = emit_layout(0, ntok);
	if (temp_bytes < cl.end || emit_bytes < el.end || ntok >= ((size_t) 1 << 31))
		return gsk_fail_msg(cudaErrorInvalidValue, "gsk_xml_scan_emit: scratch too small");
	a.tok = d_tok;
	a.depth = (uint32_t *) (t + el.depth);
	a.name = (uint64_t *) (t + el.name);
	a.ntok = ntok;

	if (a.nchunks > 0)
	{
		chunk_walk<true><<<(unsigned) ((a.nchunks + THREADS - 1) / THREADS), THREADS, 0, st>>>(a);
		if ((rc = gsk_check_launch("xml scan: writing tokens")) != 0)
			return rc;
	}
	if (ntok > 0)
	{
		cub::DoubleBuffer<uint32_t> keys(a.depth, (uint32_t *) (t + el.depth2));
		cub::DoubleBuffer<uint32_t> rows((uint32_t *) (t + el.rows),
										 (uint32_t *) (t + el.rows2));
		size_t		sort_bytes = el.sort_bytes;
		unsigned	blocks = (unsigned) ((ntok + 255) / 256);

		iota_rows<<<blocks, 256, 0, st>>>(rows.Current(), ntok);
		if ((rc = gsk_check_launch("xml scan: numbering tokens")) != 0)
			return rc;
		if ((err = cub::DeviceRadixSort::SortPairs(t + el.sort, sort_bytes, keys, rows,
												   (int) ntok, 0, 32, st)) != cudaSuccess)
			return gsk_fail(err, "xml scan: sorting tags by depth");
		check_names<<<blocks, 256, 0, st>>>(a, keys.Current(), rows.Current());
		if ((rc = gsk_check_launch("xml scan: matching tag names")) != 0)
			return rc;
	}
	if ((err = cudaMemcpyAsync(h_flags, a.flags, sizeof(uint32_t),
							   cudaMemcpyDeviceToHost, st)) != cudaSuccess)
		return gsk_fail(err, "xml scan: copying the flags");
	return 0;
}

#endif							/* !GSK_XML_SCAN_EMULATE */
