/*-------------------------------------------------------------------------
 *
 * xmltok.h
 *	  Streaming XML tokenizer: serialized XML -> the XML representation of
 *	  treerep.h (a weight token at each start tag, the close marker at each
 *	  end tag), for tree_reduce().
 *
 * Pure C, no PostgreSQL headers: the backend (tree_reduce.c), the
 * standalone tests and the fuzz target link xmltok.c alone.  The caller
 * supplies memory (a realloc-like callback) and an interrupt poll.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_XMLTOK_H
#define GPUSORT_XMLTOK_H

#include <stdbool.h>
#include <stddef.h>

#include "treerep.h"

/* Return codes of gs_xml_tokenize */
#define GS_XML_OK			0
#define GS_XML_SYNTAX		1	/* not well-formed; err->offset, err->msg */
#define GS_XML_BAD_WEIGHT	2	/* weight attribute is not a finite number */
#define GS_XML_TOO_LARGE	3	/* sum of |weights| past the bound */
#define GS_XML_CANCELLED	4	/* opt->interrupted() returned true */
#define GS_XML_NOMEM		5	/* opt->grow() returned NULL */

typedef struct GsXmlOptions
{
	const char *weight_attr;	/* attribute holding the weight */
	size_t		weight_attr_len;
	bool		read_weight;	/* false: every start tag gets missing_weight */
	double		missing_weight; /* weight of a start tag without the
								 * attribute */
	double		abs_sum_max;	/* error if sum |w| exceeds it (0: no bound) */

	/*
	 * Grows a buffer to newsize bytes keeping its contents (old may be NULL),
	 * like realloc; may throw instead of returning NULL.
	 */
	void	   *(*grow) (void *arg, void *old, size_t newsize);
	void	   *grow_arg;
	/* polled every few MB; true: stop with GS_XML_CANCELLED.  May be NULL */
	bool		(*interrupted) (void *arg);
	void	   *interrupted_arg;

	/*
	 * Bytes of s[0..len) that fit in limit bytes without cutting a character
	 * of the input's encoding, for the names and values quoted in messages
	 * (which must stay valid text for the client's conversion).  NULL: the
	 * input is UTF-8.
	 */
	size_t		(*clip) (const char *s, size_t len, size_t limit);
} GsXmlOptions;

/*
 * Output.  tok and stack are buffers owned by the caller (grown with
 * opt->grow); keep them across calls to reuse the memory, and zero the
 * struct before the first call.
 */
typedef struct GsXmlTokens
{
	GsToken    *tok;
	size_t		ntok;			/* 2 * nelements on success */
	size_t		cap;			/* tokens tok has room for */
	size_t		nelements;
	size_t		max_depth;		/* deepest element nesting, 1 = top level */
	size_t	   *stack;			/* open elements' name offsets (scratch) */
	size_t		stack_cap;
} GsXmlTokens;

#define GS_XML_MSG_LEN	256
#define GS_XML_TEXT_LEN	64

typedef struct GsXmlError
{
	size_t		offset;			/* byte offset in the input */
	char		msg[GS_XML_MSG_LEN];
	/*
	 * GS_XML_BAD_WEIGHT: element name and attribute value, truncated at a
	 * character boundary (opt->clip)
	 */
	char		element[GS_XML_TEXT_LEN];
	char		value[GS_XML_TEXT_LEN];
} GsXmlError;

/*
 * Tokenize buf[0..len).  The input is XML content: any number of elements
 * (a forest), text, comments, CDATA sections, processing instructions, an
 * XML declaration at the very start and at most one DOCTYPE before the
 * first element.  Character references and the five predefined entities
 * are decoded, also in attribute values; other entities are errors.
 */
extern int	gs_xml_tokenize(const char *buf, size_t len, const GsXmlOptions *opt,
							GsXmlTokens *out, GsXmlError *err);

/*
 * The weight syntax: optional surrounding XML whitespace, then
 * [+-]? (digits ('.' digits?)? | '.' digits) ([eE] [+-]? digits)?, a finite
 * double (float8in's syntax without NaN, Infinity and hex).  Returns false
 * if s[0..len) is not one.
 */
extern bool gs_parse_weight(const char *s, size_t len, double *w);

#endif							/* GPUSORT_XMLTOK_H */
