/*
 * fuzz_xmltok: libFuzzer target for src/tree/xmltok.c (and, on what it accepts,
 * src/tree/contract.c).
 *
 *   clang -fsanitize=fuzzer,address,undefined -Isrc -Isrc/tree \
 *         test/tree/cpu/fuzz_xmltok.c src/tree/xmltok.c src/tree/contract.c \
 *         src/threads/threads.c -lpthread -lm
 *
 * Built with -DGS_FUZZ_REPLAY instead (any compiler), main() runs the same
 * check on each file named on the command line: a corpus replayer.
 *
 * On any input the tokenizer must return, without a sanitizer report, and
 * when it accepts the input the token array must be a balanced forest with
 * no NaN but the close marker, 2 tokens per element, and the sequential and
 * chunked contractions must agree on it for the ops whose answer does not
 * depend on the order of floating-point additions.  When it refuses valid
 * UTF-8, its message and the names and values it quotes are valid UTF-8
 * too (they are cut to a fixed length, never inside a character).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tree/contract.h"
#include "tree/xmltok.h"

static void *
grow_realloc(void *arg, void *old, size_t n)
{
	(void) arg;
	return realloc(old, n);
}

static void
check_tokens(const GsXmlTokens *out, bool unit_weights)
{
	size_t		depth = 0,
				maxd = 0,
				opens = 0,
				i;
	static const int ops[] = {GS_OP_COUNT, GS_OP_LEAVES, GS_OP_HEIGHT, GS_OP_MAX, GS_OP_MIN};
	void	   *swork,
			   *cwork;

	if (out->ntok != 2 * out->nelements)
		abort();
	for (i = 0; i < out->ntok; i++)
	{
		uint64_t	bits;

		memcpy(&bits, &out->tok[i], sizeof(bits));
		if (gs_is_close(out->tok[i]))
		{
			if (bits != GS_CLOSE_BITS || depth == 0)
				abort();
			depth--;
		}
		else
		{
			opens++;
			if (++depth > maxd)
				maxd = depth;
		}
	}
	if (depth != 0 || opens != out->nelements || maxd != out->max_depth)
		abort();

	swork = malloc(gs_seq_workspace(out->ntok, out->max_depth));
	cwork = malloc(gs_chunked_workspace(out->ntok, 5, out->max_depth));
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
	{
		GsVal		a,
					b;
		GsTreeEnv	env = {NULL, NULL, 1};

		if (gs_tree_reduce_seq(ops[i], out->tok, out->ntok, out->max_depth,
							   swork, &env, &a) != GS_TREE_OK ||
			gs_tree_reduce_chunked(ops[i], out->tok, out->ntok, 5, NULL,
								   out->max_depth, cwork, &env, &b) != GS_TREE_OK)
			abort();
		/*
		 * max, min and leaves never round; count and height add weights,
		 * exact when they are the constant 1 the tokenizer gives them
		 */
		if ((unit_weights || ops[i] == GS_OP_MAX || ops[i] == GS_OP_MIN ||
			 ops[i] == GS_OP_LEAVES) && a.m != b.m)
			abort();
	}
	free(swork);
	free(cwork);
}

/* s[0..n) is well-formed UTF-8 (RFC 3629: no overlongs, no surrogates) */
static bool
utf8_valid(const unsigned char *s, size_t n)
{
	size_t		i = 0;

	while (i < n)
	{
		unsigned	c = s[i];
		size_t		len,
					k;
		uint32_t	cp;

		if (c < 0x80)
		{
			i++;
			continue;
		}
		if (c >= 0xC2 && c <= 0xDF)
			len = 2, cp = c & 0x1F;
		else if (c >= 0xE0 && c <= 0xEF)
			len = 3, cp = c & 0x0F;
		else if (c >= 0xF0 && c <= 0xF4)
			len = 4, cp = c & 0x07;
		else
			return false;
		if (n - i < len)
			return false;
		for (k = 1; k < len; k++)
		{
			if ((s[i + k] & 0xC0) != 0x80)
				return false;
			cp = (cp << 6) | (s[i + k] & 0x3F);
		}
		if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
			(len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
			return false;
		i += len;
	}
	return true;
}

static bool
text_valid(const char *s)
{
	return utf8_valid((const unsigned char *) s, strlen(s));
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	GsXmlOptions opt;
	GsXmlTokens out;
	GsXmlError	err;
	int			pass;

	for (pass = 0; pass < 2; pass++)
	{
		int			rc;

		memset(&opt, 0, sizeof(opt));
		opt.weight_attr = "w";
		opt.weight_attr_len = 1;
		opt.read_weight = pass == 0;
		opt.missing_weight = pass == 0 ? 0.0 : 1.0;
		opt.abs_sum_max = GS_WEIGHT_ABS_SUM_MAX;
		opt.grow = grow_realloc;
		memset(&out, 0, sizeof(out));
		rc = gs_xml_tokenize((const char *) data, size, &opt, &out, &err);
		if (rc == GS_XML_OK)
			check_tokens(&out, pass == 1);
		else if (err.offset > size || strlen(err.msg) == 0)
			abort();			/* every error says where and what */
		else if (utf8_valid(data, size) &&
				 (!text_valid(err.msg) ||
				  (rc == GS_XML_BAD_WEIGHT &&
				   (!text_valid(err.element) || !text_valid(err.value)))))
			abort();
		free(out.tok);
		free(out.stack);
	}
	return 0;
}

#ifdef GS_FUZZ_REPLAY
int
main(int argc, char **argv)
{
	int			i;

	for (i = 1; i < argc; i++)
	{
		FILE	   *f = fopen(argv[i], "rb");
		char	   *buf;
		long		n;

		if (f == NULL)
		{
			perror(argv[i]);
			return 1;
		}
		fseek(f, 0, SEEK_END);
		n = ftell(f);
		fseek(f, 0, SEEK_SET);
		buf = malloc(n > 0 ? n : 1);
		if (n > 0 && fread(buf, 1, n, f) != (size_t) n)
		{
			perror(argv[i]);
			return 1;
		}
		fclose(f);
		LLVMFuzzerTestOneInput((const uint8_t *) buf, (size_t) n);
		free(buf);
	}
	printf("fuzz_xmltok: replayed %d inputs\n", argc - 1);
	return 0;
}
#endif
