/*-------------------------------------------------------------------------
 *
 * gpu_select.c
 *	  The choice of a GPU for a backend's CUDA session, and the syntax of
 *	  gpusort.devices.
 *
 * A backend starts CUDA once and keeps its context on one device for its
 * life (src/gpu/gpu_session.c), so the choice is made once per backend and
 * spreads backends, not sorts, over the devices.  The rule:
 *
 *	1. only devices that gpusort.devices allows (all when it is '') and
 *	   that have a free gpusort.max_gpu_sessions slot;
 *	2. the fewest gpusort sessions: each one holds a context (hundreds of
 *	   MB of device memory) and competes for the device's copy engines and
 *	   SMs, so the session count is the load that gpusort itself puts on a
 *	   device;
 *	3. then the most free device memory, which also sees what other
 *	   processes (other clusters, other programs) hold there;
 *	4. then the lowest ordinal, so that the choice is deterministic.
 *
 * The counts are a snapshot: two backends starting at the same moment may
 * both pick the same device.  That costs balance, not correctness; the
 * slot files keep the per-device cap exact whatever the race.
 *
 * Nothing here knows PostgreSQL or CUDA: the rules are unit-tested alone
 * (test/sort/cpu/gpu_select.sh).
 *
 *-------------------------------------------------------------------------
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "gpu_select.h"

/* whether a is a better choice than b, both allowed and not full */
static bool
better(const GsDeviceLoad *a, const GsDeviceLoad *b)
{
	if (a->sessions != b->sessions)
		return a->sessions < b->sessions;
	if (a->free_bytes != b->free_bytes)
		return a->free_bytes > b->free_bytes;
	return a->ordinal < b->ordinal;
}

int
gs_select_device(const GsDeviceLoad *devs, int n, const char **reason)
{
	int			best = -1;
	bool		any_allowed = false;
	int			i;

	for (i = 0; i < n; i++)
	{
		if (!devs[i].allowed)
			continue;
		any_allowed = true;
		if (devs[i].full)
			continue;
		if (best < 0 || better(&devs[i], &devs[best]))
			best = i;
	}
	if (best < 0)
	{
		if (n == 0)
			*reason = "no CUDA device is visible";
		else if (!any_allowed)
			*reason = "no device that gpusort.devices lists is visible and usable";
		else
			*reason = "all GPU sessions (gpusort.max_gpu_sessions per device) are in use";
	}
	return best;
}

/* skips blanks */
static const char *
skip_blanks(const char *p)
{
	while (*p && isspace((unsigned char) *p))
		p++;
	return p;
}

int
gs_parse_device_list(const char *s, bool *allowed, char *err, size_t errlen)
{
	bool		seen[GS_MAX_DEVICES];
	const char *p;
	int			count = 0;

	memset(seen, 0, sizeof(seen));
	p = skip_blanks(s ? s : "");
	if (*p != '\0')
	{
		for (;;)
		{
			long		v = 0;
			const char *start = p;

			while (isdigit((unsigned char) *p))
			{
				/* saturates: anything this large is out of range anyway */
				if (v < GS_MAX_DEVICES)
					v = v * 10 + (*p - '0');
				p++;
			}
			if (p == start && (*p == ',' || *p == '\0'))
			{
				snprintf(err, errlen, "An entry of the list is empty.");
				return -1;
			}
			if (p == start)
			{
				snprintf(err, errlen, "\"%.32s\" is not a device ordinal (a number from 0 to %d).",
						 start, GS_MAX_DEVICES - 1);
				return -1;
			}
			if (v >= GS_MAX_DEVICES)
			{
				snprintf(err, errlen, "Device ordinal %.*s is out of range (0 to %d).",
						 (int) (p - start) > 32 ? 32 : (int) (p - start), start,
						 GS_MAX_DEVICES - 1);
				return -1;
			}
			if (seen[v])
			{
				snprintf(err, errlen, "Device %ld is listed twice.", v);
				return -1;
			}
			seen[v] = true;
			count++;
			p = skip_blanks(p);
			if (*p == '\0')
				break;
			if (*p != ',')
			{
				snprintf(err, errlen, "\"%.32s\" is not a device ordinal (a number from 0 to %d).",
						 start, GS_MAX_DEVICES - 1);
				return -1;
			}
			p = skip_blanks(p + 1);
		}
	}
	if (allowed)
	{
		int			i;

		for (i = 0; i < GS_MAX_DEVICES; i++)
			allowed[i] = count == 0 || seen[i];
	}
	return count;
}
