/*
 * gpu_select_test.c
 *	  The device choice and the gpusort.devices syntax (src/runtime/gpu_select.c),
 *	  alone: no PostgreSQL, no CUDA.
 *
 * Cases written out (the fewest sessions win, free memory breaks ties,
 * then the lowest ordinal; devices not allowed or full are skipped; why
 * there is none), then random device lists checked against the rule's
 * definition: the chosen device is a candidate and no candidate beats it.
 * The list parser: valid lists, blanks, and each kind of bad input with
 * its message.  Built by test/sort/cpu/gpu_select.sh; exit status 1 on a
 * failure.
 */
#include <stdio.h>
#include <string.h>

#include "runtime/gpu_select.h"
#include "check.h"

#define GB	((uint64_t) 1 << 30)

typedef struct SelectCase
{
	const char *what;
	int			n;
	GsDeviceLoad devs[4];		/* ordinal, allowed, full, sessions, free */
	int			expect;			/* index, -1: none */
	const char *reason;			/* part of the reason when none */
} SelectCase;

static const SelectCase select_cases[] = {
	{"fewest sessions win", 3,
	{{0, true, false, 2, 80 * GB}, {1, true, false, 1, 10 * GB}, {2, true, false, 3, 80 * GB}}, 1, NULL},
	{"free memory breaks a tie", 3,
	{{0, true, false, 1, 40 * GB}, {1, true, false, 1, 70 * GB}, {2, true, false, 1, 60 * GB}}, 1, NULL},
	{"then the lowest ordinal", 3,
	{{0, true, false, 1, 40 * GB}, {1, true, false, 0, 70 * GB}, {2, true, false, 0, 70 * GB}}, 1, NULL},
	{"a device not allowed is skipped", 2,
	{{0, false, false, 0, 80 * GB}, {1, true, false, 5, 1 * GB}}, 1, NULL},
	{"a full device is skipped", 3,
	{{0, true, true, 0, 80 * GB}, {1, true, false, 7, 1 * GB}, {2, true, true, 1, 2 * GB}}, 1, NULL},
	{"ordinals need not follow the index", 2,
	{{5, true, false, 0, 8 * GB}, {3, true, false, 0, 8 * GB}}, 1, NULL},
	{"one device", 1, {{0, true, false, 0, 0}}, 0, NULL},
	{"all full", 2,
	{{0, true, true, 8, 80 * GB}, {1, true, true, 8, 80 * GB}}, -1, "GPU sessions"},
	{"full or not allowed", 2,
	{{0, false, false, 0, 80 * GB}, {1, true, true, 8, 80 * GB}}, -1, "GPU sessions"},
	{"none allowed", 2,
	{{0, false, false, 0, 80 * GB}, {1, false, false, 0, 80 * GB}}, -1, "gpusort.devices"},
	{"no device", 0, {{0}}, -1, "no CUDA device"},
};

static void
select_case(const SelectCase *c)
{
	const char *reason = NULL;
	int			got = gs_select_device(c->devs, c->n, &reason);
	char		d[160];

	checks++;
	if (got != c->expect)
	{
		snprintf(d, sizeof(d), "chose index %d, expected %d", got, c->expect);
		fail(c->what, d);
	}
	else if (got < 0 && (reason == NULL || strstr(reason, c->reason) == NULL))
		fail(c->what, reason ? reason : "no reason");
}

/* whether a beats b by the rule's definition, both candidates */
static bool
beats(const GsDeviceLoad *a, const GsDeviceLoad *b)
{
	return a->sessions < b->sessions ||
		(a->sessions == b->sessions && a->free_bytes > b->free_bytes) ||
		(a->sessions == b->sessions && a->free_bytes == b->free_bytes &&
		 a->ordinal < b->ordinal);
}

/* random lists: the choice is a candidate that no candidate beats */
static void
random_selects(int rounds)
{
	int			r;

	checks++;
	for (r = 0; r < rounds; r++)
	{
		GsDeviceLoad devs[GS_MAX_DEVICES];
		int			n = (int) (rnd() % (GS_MAX_DEVICES + 1));
		int			ncand = 0;
		const char *reason = NULL;
		int			got;
		int			i;

		for (i = 0; i < n; i++)
		{
			devs[i].ordinal = i;
			devs[i].allowed = rnd() % 4 != 0;
			devs[i].sessions = (int) (rnd() % 4);
			devs[i].full = rnd() % 5 == 0;
			/* few distinct values, so that ties are common */
			devs[i].free_bytes = (rnd() % 3) * GB;
			ncand += devs[i].allowed && !devs[i].full;
		}
		got = gs_select_device(devs, n, &reason);
		if (ncand == 0)
		{
			if (got != -1 || reason == NULL)
				fail("random lists", "a choice without a candidate");
			continue;
		}
		if (got < 0 || got >= n || !devs[got].allowed || devs[got].full)
		{
			fail("random lists", "not a candidate");
			continue;
		}
		for (i = 0; i < n; i++)
			if (i != got && devs[i].allowed && !devs[i].full &&
				beats(&devs[i], &devs[got]))
				fail("random lists", "a better candidate was passed over");
	}
}

typedef struct ParseCase
{
	const char *in;
	int			expect;			/* count, -1: an error */
	const char *listed;			/* ordinals allowed, e.g. "0,2"; NULL: all */
	const char *error;			/* part of the message, when expect is -1 */
} ParseCase;

static const ParseCase parse_cases[] = {
	{"", 0, NULL, NULL},
	{"   ", 0, NULL, NULL},
	{"0", 1, "0", NULL},
	{"0,2", 2, "0,2", NULL},
	{" 3 , 1 ", 2, "1,3", NULL},
	{"15", 1, "15", NULL},
	{"007", 1, "7", NULL},
	{"16", -1, NULL, "out of range"},
	{"99999999999999999999999", -1, NULL, "out of range"},
	{"x", -1, NULL, "not a device ordinal"},
	{"-1", -1, NULL, "not a device ordinal"},
	{"+1", -1, NULL, "not a device ordinal"},
	{"0x1", -1, NULL, "not a device ordinal"},
	{"1 2", -1, NULL, "not a device ordinal"},
	{"1;2", -1, NULL, "not a device ordinal"},
	{"1,1", -1, NULL, "listed twice"},
	{"0, 2,0", -1, NULL, "listed twice"},
	{"1,,2", -1, NULL, "empty"},
	{"1,", -1, NULL, "empty"},
	{",1", -1, NULL, "empty"},
	{",", -1, NULL, "empty"},
};

static void
parse_case(const ParseCase *c)
{
	bool		allowed[GS_MAX_DEVICES];
	bool		want[GS_MAX_DEVICES];
	char		err[128] = "";
	char		d[200];
	int			got;
	int			i;

	checks++;
	memset(allowed, 0, sizeof(allowed));
	got = gs_parse_device_list(c->in, allowed, err, sizeof(err));
	if (got != c->expect)
	{
		snprintf(d, sizeof(d), "\"%s\": %d, expected %d (%s)", c->in, got, c->expect, err);
		fail("gpusort.devices syntax", d);
		return;
	}
	if (got < 0)
	{
		if (strstr(err, c->error) == NULL)
		{
			snprintf(d, sizeof(d), "\"%s\": message \"%s\"", c->in, err);
			fail("gpusort.devices syntax", d);
		}
		return;
	}
	for (i = 0; i < GS_MAX_DEVICES; i++)
		want[i] = c->listed == NULL;
	if (c->listed)
	{
		const char *p = c->listed;

		while (*p)
		{
			want[atoi(p)] = true;
			p += strcspn(p, ",");
			p += *p == ',';
		}
	}
	if (memcmp(allowed, want, sizeof(want)) != 0)
	{
		snprintf(d, sizeof(d), "\"%s\": the wrong devices allowed", c->in);
		fail("gpusort.devices syntax", d);
	}
}

int
main(void)
{
	int			i;

	rnd_seed(0x2545f4914f6cdd1dULL);
	for (i = 0; i < (int) (sizeof(select_cases) / sizeof(select_cases[0])); i++)
		select_case(&select_cases[i]);
	random_selects(20000);
	for (i = 0; i < (int) (sizeof(parse_cases) / sizeof(parse_cases[0])); i++)
		parse_case(&parse_cases[i]);
	/* a NULL value (a string setting's "unset") means every device */
	checks++;
	if (gs_parse_device_list(NULL, NULL, NULL, 0) != 0)
		fail("gpusort.devices syntax", "NULL is not every device");
	return check_report();
}
