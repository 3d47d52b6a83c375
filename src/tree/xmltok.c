/*-------------------------------------------------------------------------
 *
 * xmltok.c
 *	  Streaming XML tokenizer for tree_reduce(): serialized XML to the XML
 *	  representation (Koike and Sadakane, section 2.3).
 *
 * One left-to-right pass over the bytes, no DOM and no recursion: the only
 * state that grows with the input is the stack of open elements (one
 * offset per level, so no depth limit) and the token array.  Each byte is
 * examined a constant number of times (a name is read once at its start
 * tag and once more when its end tag is compared), so the pass is linear.
 *
 * What is checked is what makes the tree well defined: tags nest and names
 * match, attributes are well formed (either quote style, no '<' in values),
 * references are the five predefined entities or character references to
 * XML characters, comments do not contain "--", text does not contain
 * "]]>" or control characters, at most one DOCTYPE comes before the first
 * element, and an XML declaration only at the very start.  Encoding is not
 * checked here: PostgreSQL has validated the bytes as the database encoding.
 * The entities a DOCTYPE may declare are not expanded: a reference to one is
 * an error, so a document never silently loses elements.
 *
 * Pure C with no PostgreSQL headers: errors come back as codes with a byte
 * offset and a message, memory comes from the caller's grow callback.
 *
 *-------------------------------------------------------------------------
 */
#include <errno.h>
#include <stdint.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xmlchar.h"
#include "xmltok.h"

/* poll for interrupts after this many bytes */
#define POLL_BYTES		((size_t) 1 << 22)
/* longest weight value we decode, in bytes */
#define WEIGHT_MAX_LEN	1024

typedef struct TokState
{
	const unsigned char *buf;
	size_t		len;
	size_t		pos;
	const GsXmlOptions *opt;
	GsXmlTokens *out;
	GsXmlError *err;
	size_t		depth;
	bool		seen_element;
	bool		seen_doctype;
	double		abs_sum;
} TokState;

/* byte classes */
#define C_NAMESTART	0x01
#define C_NAME		0x02
#define C_SPACE		0x04
#define C_TEXTSTOP	0x08		/* ends a run of plain text: < & ] control */
#define C_ATTRSTOP	0x10		/* ends a run of plain attribute value */

static unsigned char cls[256];
static bool cls_ready = false;

static void
init_classes(void)
{
	int			c;

	if (cls_ready)
		return;
	for (c = 0; c < 256; c++)
	{
		unsigned char k = 0;

		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
			c == ':' || c >= 0x80)
			k |= C_NAMESTART | C_NAME;
		if ((c >= '0' && c <= '9') || c == '-' || c == '.')
			k |= C_NAME;
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
			k |= C_SPACE;
		if (c == '<' || c == '&' || c == ']' ||
			(c < 0x20 && c != '\t' && c != '\n' && c != '\r'))
			k |= C_TEXTSTOP;
		if (c == '<' || c == '&' || c == '"' || c == '\'' ||
			(c < 0x20 && c != '\t' && c != '\n' && c != '\r'))
			k |= C_ATTRSTOP;
		cls[c] = k;
	}
	cls_ready = true;
}

#if defined(__GNUC__)
static int	fail_at(TokState *st, size_t offset, int code, const char *fmt,...)
			__attribute__((format(printf, 4, 5)));
#endif

static int
fail_at(TokState *st, size_t offset, int code, const char *fmt,...)
{
	va_list		ap;

	st->err->offset = offset;
	va_start(ap, fmt);
	vsnprintf(st->err->msg, sizeof(st->err->msg), fmt, ap);
	va_end(ap);
	return code;
}

#define SYNTAX(st, off, ...) fail_at((st), (off), GS_XML_SYNTAX, __VA_ARGS__)

static bool
has_prefix(const TokState *st, size_t pos, const char *s)
{
	size_t		n = strlen(s);

	return pos <= st->len && st->len - pos >= n &&
		memcmp(st->buf + pos, s, n) == 0;
}

static size_t
skip_space(const TokState *st, size_t pos)
{
	while (pos < st->len && (cls[st->buf[pos]] & C_SPACE))
		pos++;
	return pos;
}

/* length of the name at pos (0: no name there) */
static size_t
name_len(const TokState *st, size_t pos)
{
	size_t		p = pos;

	if (p >= st->len || !(cls[st->buf[p]] & C_NAMESTART))
		return 0;
	p++;
	while (p < st->len && (cls[st->buf[p]] & C_NAME))
		p++;
	return p - pos;
}

/*
 * Copy s[0..n) for a message, truncated at a character boundary: a message
 * with half a character in it is not valid text, and the server refuses to
 * convert it for a client in another encoding.  The backend clips by the
 * database encoding (opt->clip); the standalone builds read UTF-8, where a
 * cut that lands on a continuation byte (10xxxxxx) backs off to the start
 * of that character.
 */
static void
copy_text(const TokState *st, char *dst, size_t dstlen,
		  const unsigned char *s, size_t n)
{
	if (n >= dstlen)
	{
		if (st->opt->clip)
			n = st->opt->clip((const char *) s, n, dstlen - 1);
		else
		{
			n = dstlen - 1;
			while (n > 0 && (s[n] & 0xC0) == 0x80)
				n--;
		}
	}
	memcpy(dst, s, n);
	dst[n] = '\0';
}

/*
 * Parse the reference starting at pos ('&').  On success sets *end past the
 * ';' and, when dst is not NULL, appends its UTF-8 expansion to dst
 * (advancing *dstlen; dst has room for 4 more bytes).
 */
static int
parse_reference(TokState *st, size_t pos, size_t *end, char *dst, size_t *dstlen)
{
	size_t		p = pos + 1;
	unsigned long cp = 0;
	static const struct
	{
		const char *name;
		char		c;
	}			predefined[] = {
		{"lt;", '<'}, {"gt;", '>'}, {"amp;", '&'}, {"quot;", '"'}, {"apos;", '\''}
	};

	if (p < st->len && st->buf[p] == '#')
	{
		p = gs_xml_char_ref(st->buf, p + 1, st->len, &cp);
		if (p == 0)
			return SYNTAX(st, pos, "malformed character reference");
		if (!gs_is_xml_char(cp))
			return SYNTAX(st, pos, "character reference to an invalid character");
		*end = p;
		if (dst)
		{
			unsigned char *d = (unsigned char *) dst + *dstlen;

			if (cp < 0x80)
				d[0] = (unsigned char) cp, *dstlen += 1;
			else if (cp < 0x800)
			{
				d[0] = 0xC0 | (cp >> 6);
				d[1] = 0x80 | (cp & 0x3F);
				*dstlen += 2;
			}
			else if (cp < 0x10000)
			{
				d[0] = 0xE0 | (cp >> 12);
				d[1] = 0x80 | ((cp >> 6) & 0x3F);
				d[2] = 0x80 | (cp & 0x3F);
				*dstlen += 3;
			}
			else
			{
				d[0] = 0xF0 | (cp >> 18);
				d[1] = 0x80 | ((cp >> 12) & 0x3F);
				d[2] = 0x80 | ((cp >> 6) & 0x3F);
				d[3] = 0x80 | (cp & 0x3F);
				*dstlen += 4;
			}
		}
		return GS_XML_OK;
	}
	for (size_t i = 0; i < sizeof(predefined) / sizeof(predefined[0]); i++)
	{
		if (has_prefix(st, p, predefined[i].name))
		{
			*end = p + strlen(predefined[i].name);
			if (dst)
				dst[(*dstlen)++] = predefined[i].c;
			return GS_XML_OK;
		}
	}
	{
		size_t		n = name_len(st, p);
		char		name[GS_XML_TEXT_LEN];

		if (n > 0 && p + n < st->len && st->buf[p + n] == ';')
		{
			copy_text(st, name, sizeof(name), st->buf + p, n);
			return SYNTAX(st, pos, "undefined entity \"&%s;\" (only the five predefined entities and character references are supported)", name);
		}
	}
	return SYNTAX(st, pos, "'&' does not start a reference (write &amp;)");
}

static int
poll_interrupts(TokState *st)
{
	if (st->opt->interrupted && st->opt->interrupted(st->opt->interrupted_arg))
		return GS_XML_CANCELLED;
	return GS_XML_OK;
}

static int
emit(TokState *st, GsToken t)
{
	GsXmlTokens *out = st->out;

	if (out->ntok == out->cap)
	{
		size_t		ncap = out->cap ? out->cap * 2 : 1024;
		void	   *p = st->opt->grow(st->opt->grow_arg, out->tok,
									  ncap * sizeof(GsToken));

		if (p == NULL)
			return fail_at(st, st->pos, GS_XML_NOMEM, "out of memory");
		out->tok = p;
		out->cap = ncap;
	}
	out->tok[out->ntok++] = t;
	return GS_XML_OK;
}

static int
push_open(TokState *st, size_t name_pos, double w)
{
	GsXmlTokens *out = st->out;
	int			rc;

	if (st->depth == out->stack_cap)
	{
		size_t		ncap = out->stack_cap ? out->stack_cap * 2 : 64;
		void	   *p = st->opt->grow(st->opt->grow_arg, out->stack,
									  ncap * sizeof(size_t));

		if (p == NULL)
			return fail_at(st, st->pos, GS_XML_NOMEM, "out of memory");
		out->stack = p;
		out->stack_cap = ncap;
	}
	if ((rc = emit(st, w)) != GS_XML_OK)
		return rc;
	out->stack[st->depth++] = name_pos;
	if (st->depth > out->max_depth)
		out->max_depth = st->depth;
	out->nelements++;
	st->seen_element = true;
	return GS_XML_OK;
}

static int
pop_close(TokState *st)
{
	st->depth--;
	return emit(st, gs_close_token());
}

/* text up to the next '<' */
static int
scan_text(TokState *st)
{
	size_t		p = st->pos;
	int			rc;

	while (p < st->len)
	{
		unsigned char c = st->buf[p];

		if (!(cls[c] & C_TEXTSTOP))
		{
			p++;
			continue;
		}
		if (c == '<')
			break;
		if (c == '&')
		{
			if ((rc = parse_reference(st, p, &p, NULL, NULL)) != GS_XML_OK)
				return rc;
			continue;
		}
		if (c == ']')
		{
			if (has_prefix(st, p, "]]>"))
				return SYNTAX(st, p, "\"]]>\" is not allowed in text");
			p++;
			continue;
		}
		return SYNTAX(st, p, "control character 0x%02x is not allowed in XML", c);
	}
	st->pos = p;
	return GS_XML_OK;
}

/* <!-- ... --> at pos */
static int
scan_comment(TokState *st)
{
	size_t		start = st->pos;
	size_t		p = start + 4;

	for (;;)
	{
		const unsigned char *dash = memchr(st->buf + p, '-', st->len - p);

		if (dash == NULL)
			return SYNTAX(st, start, "unterminated comment");
		p = dash - st->buf;
		if (p + 1 < st->len && st->buf[p + 1] == '-')
		{
			if (p + 2 < st->len && st->buf[p + 2] == '>')
			{
				st->pos = p + 3;
				return GS_XML_OK;
			}
			return SYNTAX(st, p, "\"--\" is not allowed inside a comment");
		}
		p++;
	}
}

/* <![CDATA[ ... ]]> at pos */
static int
scan_cdata(TokState *st)
{
	size_t		start = st->pos;
	size_t		p = start + 9;

	for (;;)
	{
		const unsigned char *b = memchr(st->buf + p, ']', st->len - p);

		if (b == NULL)
			return SYNTAX(st, start, "unterminated CDATA section");
		p = b - st->buf;
		if (has_prefix(st, p, "]]>"))
		{
			st->pos = p + 3;
			return GS_XML_OK;
		}
		p++;
	}
}

/* <?target ...?> at pos; the XML declaration only at offset 0 (after a BOM) */
static int
scan_pi(TokState *st, size_t doc_start)
{
	size_t		start = st->pos;
	size_t		p = start + 2;
	size_t		n = name_len(st, p);

	if (n == 0)
		return SYNTAX(st, start, "processing instruction without a target");
	if (n == 3 && (st->buf[p] | 0x20) == 'x' && (st->buf[p + 1] | 0x20) == 'm' &&
		(st->buf[p + 2] | 0x20) == 'l' && start != doc_start)
		return SYNTAX(st, start, "XML declaration allowed only at the start of the document");
	p += n;
	if (p < st->len && !(cls[st->buf[p]] & C_SPACE) && !has_prefix(st, p, "?>"))
		return SYNTAX(st, p, "malformed processing instruction target");
	for (;;)
	{
		const unsigned char *q = memchr(st->buf + p, '?', st->len - p);

		if (q == NULL)
			return SYNTAX(st, start, "unterminated processing instruction");
		p = q - st->buf;
		if (has_prefix(st, p, "?>"))
		{
			st->pos = p + 2;
			return GS_XML_OK;
		}
		p++;
	}
}

/*
 * <!DOCTYPE name ... [internal subset]> at pos.  Skipped with just enough
 * understanding to find its end: quoted strings, comments and PIs in the
 * internal subset may contain '>' and ']'.
 */
static int
scan_doctype(TokState *st)
{
	size_t		start = st->pos;
	size_t		p = start + 9;
	bool		in_subset = false;
	bool		had_subset = false;

	if (st->seen_element || st->seen_doctype)
		return SYNTAX(st, start, "DOCTYPE allowed only once, before the first element");
	/* XML wants white space before the name; libxml2 does not insist */
	if (name_len(st, skip_space(st, p)) == 0)
		return SYNTAX(st, start, "malformed DOCTYPE");
	while (p < st->len)
	{
		unsigned char c = st->buf[p];

		if (c == '"' || c == '\'')
		{
			const unsigned char *q = memchr(st->buf + p + 1, c, st->len - p - 1);

			if (q == NULL)
				break;
			p = q - st->buf + 1;
		}
		else if (in_subset && has_prefix(st, p, "<!--"))
		{
			size_t		save = st->pos;
			int			rc;

			st->pos = p;
			if ((rc = scan_comment(st)) != GS_XML_OK)
				return rc;
			p = st->pos;
			st->pos = save;
		}
		else if (in_subset && has_prefix(st, p, "<?"))
		{
			size_t		save = st->pos;
			int			rc;

			st->pos = p;
			if ((rc = scan_pi(st, (size_t) -1)) != GS_XML_OK)
				return rc;
			p = st->pos;
			st->pos = save;
		}
		else if (c == '[' && !in_subset && !had_subset)
			in_subset = had_subset = true, p++;
		else if (c == ']' && in_subset)
			in_subset = false, p++;
		else if (c == '>' && !in_subset && !had_subset &&
				 p + 1 < st->len && st->buf[p + 1] == '[')
		{
			/*
			 * libxml2 reads "<!DOCTYPE a>[...]>" as a DOCTYPE with an
			 * internal subset; so do we, to reject no document it accepts
			 */
			in_subset = had_subset = true;
			p += 2;
		}
		else if (c == '>' && !in_subset)
		{
			st->pos = p + 1;
			st->seen_doctype = true;
			return GS_XML_OK;
		}
		else
			p++;
	}
	return SYNTAX(st, start, "unterminated DOCTYPE");
}

/* </name> at pos */
static int
scan_end_tag(TokState *st)
{
	size_t		start = st->pos;
	size_t		p = start + 2;
	size_t		n = name_len(st, p);
	size_t		open_pos,
				open_n;

	if (n == 0)
		return SYNTAX(st, start, "malformed end tag");
	if (st->depth == 0)
	{
		char		name[GS_XML_TEXT_LEN];

		copy_text(st, name, sizeof(name), st->buf + p, n);
		return SYNTAX(st, start, "end tag </%s> without a start tag", name);
	}
	open_pos = st->out->stack[st->depth - 1];
	open_n = name_len(st, open_pos);
	if (open_n != n || memcmp(st->buf + open_pos, st->buf + p, n) != 0)
	{
		char		name[GS_XML_TEXT_LEN];
		char		open[GS_XML_TEXT_LEN];

		copy_text(st, name, sizeof(name), st->buf + p, n);
		copy_text(st, open, sizeof(open), st->buf + open_pos, open_n);
		return SYNTAX(st, start, "end tag </%s> does not match start tag <%s>", name, open);
	}
	p = skip_space(st, p + n);
	if (p >= st->len || st->buf[p] != '>')
		return SYNTAX(st, start, "malformed end tag");
	st->pos = p + 1;
	return pop_close(st);
}

/*
 * The weight in the attribute value buf[vstart..vend) (between the quotes,
 * references not yet decoded).
 */
static int
read_weight(TokState *st, size_t name_pos, size_t vstart, size_t vend, double *w)
{
	char		val[WEIGHT_MAX_LEN + 8];
	const char *text = (const char *) st->buf + vstart;
	size_t		n = vend - vstart;
	bool		ok;
	int			rc;

	if (memchr(text, '&', n) == NULL)
		ok = gs_parse_weight(text, n, w);	/* the common case: as it is */
	else
	{
		size_t		p = vstart;

		n = 0;
		while (p < vend && n <= WEIGHT_MAX_LEN)
		{
			if (st->buf[p] == '&')
			{
				if ((rc = parse_reference(st, p, &p, val, &n)) != GS_XML_OK)
					return rc;
			}
			else
				val[n++] = (char) st->buf[p++];
		}
		text = val;
		ok = p == vend && gs_parse_weight(val, n, w);
	}
	if (!ok)
	{
		copy_text(st, st->err->element, sizeof(st->err->element),
				  st->buf + name_pos, name_len(st, name_pos));
		copy_text(st, st->err->value, sizeof(st->err->value),
				  (const unsigned char *) text, n);
		return fail_at(st, vstart, GS_XML_BAD_WEIGHT, "weight is not a finite number");
	}
	if (st->opt->abs_sum_max > 0)
	{
		st->abs_sum += fabs(*w);
		if (!(st->abs_sum <= st->opt->abs_sum_max))
			return fail_at(st, vstart, GS_XML_TOO_LARGE,
						   "sum of the absolute weights exceeds %g", st->opt->abs_sum_max);
	}
	return GS_XML_OK;
}

/* <name attr="v" ...> or <name .../> at pos */
static int
scan_start_tag(TokState *st)
{
	const GsXmlOptions *opt = st->opt;
	size_t		start = st->pos;
	size_t		name_pos = start + 1;
	size_t		p;
	size_t		n = name_len(st, name_pos);
	double		w = opt->missing_weight;
	bool		have_weight = false;
	int			rc;

	if (n == 0)
		return SYNTAX(st, start, "'<' does not start a tag (write &lt;)");
	p = name_pos + n;
	for (;;)
	{
		size_t		after_space = skip_space(st, p);
		size_t		attr_pos,
					an,
					vstart;
		unsigned char quote;

		if (after_space >= st->len)
			return SYNTAX(st, start, "unterminated start tag");
		if (st->buf[after_space] == '>')
		{
			st->pos = after_space + 1;
			return push_open(st, name_pos, w);
		}
		if (st->buf[after_space] == '/')
		{
			if (after_space + 1 >= st->len || st->buf[after_space + 1] != '>')
				return SYNTAX(st, after_space, "malformed empty-element tag");
			st->pos = after_space + 2;
			if ((rc = push_open(st, name_pos, w)) != GS_XML_OK)
				return rc;
			return pop_close(st);
		}
		attr_pos = after_space;
		an = name_len(st, attr_pos);
		if (an == 0)
			return SYNTAX(st, attr_pos, "malformed attribute");
		if (attr_pos == p)
			return SYNTAX(st, attr_pos, "attributes must be separated by white space");
		p = skip_space(st, attr_pos + an);
		if (p >= st->len || st->buf[p] != '=')
			return SYNTAX(st, attr_pos, "attribute without a value");
		p = skip_space(st, p + 1);
		if (p >= st->len || (st->buf[p] != '"' && st->buf[p] != '\''))
			return SYNTAX(st, p, "attribute value must be quoted");
		quote = st->buf[p];
		vstart = ++p;
		for (;;)
		{
			unsigned char c;

			while (p < st->len && !(cls[st->buf[p]] & C_ATTRSTOP))
				p++;
			if (p >= st->len)
				return SYNTAX(st, vstart - 1, "unterminated attribute value");
			c = st->buf[p];
			if (c == quote)
				break;
			if (c == '"' || c == '\'')
				p++;
			else if (c == '&')
			{
				if ((rc = parse_reference(st, p, &p, NULL, NULL)) != GS_XML_OK)
					return rc;
			}
			else if (c == '<')
				return SYNTAX(st, p, "'<' is not allowed in an attribute value");
			else
				return SYNTAX(st, p, "control character 0x%02x is not allowed in XML", c);
		}
		if (opt->read_weight && an == opt->weight_attr_len &&
			memcmp(st->buf + attr_pos, opt->weight_attr, an) == 0)
		{
			if (have_weight)
			{
				char		name[GS_XML_TEXT_LEN];

				copy_text(st, name, sizeof(name), st->buf + attr_pos, an);
				return SYNTAX(st, attr_pos, "duplicate attribute \"%s\"", name);
			}
			if ((rc = read_weight(st, name_pos, vstart, p, &w)) != GS_XML_OK)
				return rc;
			have_weight = true;
		}
		p++;					/* past the closing quote */
	}
}

int
gs_xml_tokenize(const char *buf, size_t len, const GsXmlOptions *opt,
				GsXmlTokens *out, GsXmlError *err)
{
	TokState	st;
	size_t		next_poll = POLL_BYTES;
	size_t		doc_start = 0;
	int			rc = GS_XML_OK;

	init_classes();
	memset(&st, 0, sizeof(st));
	st.buf = (const unsigned char *) buf;
	st.len = len;
	st.opt = opt;
	st.out = out;
	st.err = err;
	out->ntok = 0;
	out->nelements = 0;
	out->max_depth = 0;
	err->msg[0] = err->element[0] = err->value[0] = '\0';
	err->offset = 0;

	if (has_prefix(&st, 0, "\xEF\xBB\xBF"))
		st.pos = doc_start = 3;

	while (st.pos < len && rc == GS_XML_OK)
	{
		const unsigned char *b = st.buf + st.pos;
		size_t		left = len - st.pos;

		if (st.pos >= next_poll)
		{
			if ((rc = poll_interrupts(&st)) != GS_XML_OK)
				return rc;
			next_poll = st.pos + POLL_BYTES;
		}
		if (b[0] != '<')
			rc = scan_text(&st);
		else if (left >= 2 && b[1] == '/')
			rc = scan_end_tag(&st);
		else if (left >= 2 && b[1] == '?')
			rc = scan_pi(&st, doc_start);
		else if (has_prefix(&st, st.pos, "<!--"))
			rc = scan_comment(&st);
		else if (has_prefix(&st, st.pos, "<![CDATA["))
		{
			if (st.depth == 0)
				rc = SYNTAX(&st, st.pos, "CDATA section outside of an element");
			else
				rc = scan_cdata(&st);
		}
		else if (has_prefix(&st, st.pos, "<!DOCTYPE"))
			rc = scan_doctype(&st);
		else if (left >= 2 && b[1] == '!')
			rc = SYNTAX(&st, st.pos, "malformed markup declaration");
		else
			rc = scan_start_tag(&st);
	}
	if (rc != GS_XML_OK)
		return rc;
	if (st.depth > 0)
	{
		size_t		open_pos = out->stack[st.depth - 1];
		char		name[GS_XML_TEXT_LEN];

		copy_text(&st, name, sizeof(name), st.buf + open_pos, name_len(&st, open_pos));
		return SYNTAX(&st, len, "element <%s> is not closed", name);
	}
	return GS_XML_OK;
}

/*
 * Fast path for the common weights (Clinger's): a mantissa of at most 15
 * digits is an exact double, and so is a power of ten up to 1e22, so one
 * IEEE multiplication or division gives the correctly rounded value, the
 * same double strtod would return.  s[0..len) is known to be a valid
 * number without surrounding space.  Returns false when the fast path does
 * not apply.
 */
static bool
parse_exact(const char *s, size_t len, double *w)
{
	static const double pow10[] = {
		1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
		1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
	};
	size_t		p = 0;
	bool		neg = false;
	uint64_t	m = 0;
	int			ndigits = 0;
	int			scale = 0;		/* value = m * 10^scale */
	double		v;

	if (s[p] == '+' || s[p] == '-')
		neg = s[p++] == '-';
	for (; p < len && s[p] >= '0' && s[p] <= '9'; p++)
	{
		if (m == 0 && s[p] == '0')
			continue;			/* leading zeros are free */
		if (++ndigits > 15)
			return false;
		m = m * 10 + (s[p] - '0');
	}
	if (p < len && s[p] == '.')
	{
		for (p++; p < len && s[p] >= '0' && s[p] <= '9'; p++)
		{
			if (m != 0 || s[p] != '0')
			{
				if (++ndigits > 15)
					return false;
			}
			m = m * 10 + (s[p] - '0');
			scale--;
		}
	}
	if (p < len)
	{
		int			e = 0;
		bool		eneg = false;

		p++;					/* e or E */
		if (s[p] == '+' || s[p] == '-')
			eneg = s[p++] == '-';
		for (; p < len; p++)
		{
			if (e > 1000)
				return false;
			e = e * 10 + (s[p] - '0');
		}
		scale += eneg ? -e : e;
	}
	if (scale < -22 || scale > 22)
		return false;
	v = (double) m;
	v = scale >= 0 ? v * pow10[scale] : v / pow10[-scale];
	*w = neg ? -v : v;
	return true;
}

bool
gs_parse_weight(const char *s, size_t len, double *w)
{
	char		tmp[WEIGHT_MAX_LEN + 1];
	size_t		b = 0,
				e = len,
				p;
	size_t		mant = 0;
	double		v;
	char	   *endp;

	init_classes();
	while (b < e && (cls[(unsigned char) s[b]] & C_SPACE))
		b++;
	while (e > b && (cls[(unsigned char) s[e - 1]] & C_SPACE))
		e--;
	if (e - b == 0 || e - b > WEIGHT_MAX_LEN)
		return false;
	p = b;
	if (s[p] == '+' || s[p] == '-')
		p++;
	while (p < e && s[p] >= '0' && s[p] <= '9')
		p++, mant++;
	if (p < e && s[p] == '.')
	{
		p++;
		while (p < e && s[p] >= '0' && s[p] <= '9')
			p++, mant++;
	}
	if (mant == 0)
		return false;
	if (p < e && (s[p] == 'e' || s[p] == 'E'))
	{
		size_t		ndig = 0;

		p++;
		if (p < e && (s[p] == '+' || s[p] == '-'))
			p++;
		while (p < e && s[p] >= '0' && s[p] <= '9')
			p++, ndig++;
		if (ndig == 0)
			return false;
	}
	if (p != e)
		return false;
	if (parse_exact(s + b, e - b, w))
		return true;
	memcpy(tmp, s + b, e - b);
	tmp[e - b] = '\0';
	errno = 0;
	v = strtod(tmp, &endp);
	if (*endp != '\0' || !isfinite(v))
		return false;
	*w = v;
	return true;
}
