/*-------------------------------------------------------------------------
 *
 * membudget.c
 *	  The memory limit of the process's cgroup, for gpusort's budgets.
 *
 * A server in a container (Docker, Kubernetes, a systemd unit with
 * MemoryMax) may use far less memory than the machine has; past its
 * cgroup's limit the kernel's OOM killer ends a backend, and PostgreSQL
 * then restarts every session.  So the budgets (settings.c) start from the
 * cgroup's limit where there is one.
 *
 * Finding it takes three files:
 *
 *	 1. /proc/self/cgroup: the process's group, per hierarchy.  cgroup v2
 *		has one line "0::/path"; v1 has "N:controller,...:/path" per
 *		hierarchy, and the memory controller's line is the one wanted.
 *	 2. /proc/self/mountinfo: where that hierarchy is mounted, and which of
 *		its directories is the mount's root (in a container with a cgroup
 *		namespace or a bind mount, the group's path starts with it, or the
 *		mount is the group itself).
 *	 3. The limit in the group's directory: v2's memory.max, which is
 *		checked in every ancestor below the mount too, since a parent's
 *		limit binds its children; v1's memory.stat line
 *		hierarchical_memory_limit, which is that minimum already, else
 *		memory.limit_in_bytes.
 *
 * "max" and absurdly large values (v1 writes 2^63 rounded down to a page
 * for "unlimited") mean no limit.  Hybrid systems mount both versions; the
 * memory controller is in one of them, so v2 is tried first, then v1.
 *
 * Plain C, no PostgreSQL calls: every file name is taken relative to a root
 * directory, so test/sort/cpu/membudget.sh runs this on fixture trees.
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "membudget.h"

/* the files read here are small; anything longer is not what we expect */
#define GS_MEM_FILE_MAX		65536

bool
gs_mem_parse_limit(const char *text, uint64_t *bytes)
{
	char	   *end;
	unsigned long long v;

	while (*text == ' ' || *text == '\t')
		text++;
	if (*text < '0' || *text > '9')
		return false;			/* "max", empty, negative */
	v = strtoull(text, &end, 10);
	while (*end == ' ' || *end == '\t' || *end == '\n')
		end++;
	if (*end != '\0' || v == 0 || v >= GS_MEM_NO_LIMIT)
		return false;
	*bytes = (uint64_t) v;
	return true;
}

/* does the comma-separated list hold word? */
static bool
list_has(const char *list, size_t len, const char *word)
{
	size_t		wlen = strlen(word);
	const char *p = list;
	const char *end = list + len;

	while (p < end)
	{
		const char *comma = memchr(p, ',', end - p);
		size_t		n = (comma ? comma : end) - p;

		if (n == wlen && memcmp(p, word, n) == 0)
			return true;
		if (!comma)
			break;
		p = comma + 1;
	}
	return false;
}

bool
gs_mem_cgroup_path(const char *proc_cgroup, const char *controller,
				   char *path, size_t len)
{
	const char *line = proc_cgroup;

	while (line && *line)
	{
		const char *eol = strchr(line, '\n');
		const char *c1 = strchr(line, ':');
		const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		size_t		plen;

		if (!eol)
			eol = line + strlen(line);
		if (c1 && c2 && c2 < eol)
		{
			bool		match;

			if (controller == NULL)
				match = (c1 - line == 1 && line[0] == '0' && c2 == c1 + 1);
			else
				match = list_has(c1 + 1, c2 - c1 - 1, controller);
			plen = eol - (c2 + 1);
			if (match && plen > 0 && plen < len)
			{
				memcpy(path, c2 + 1, plen);
				path[plen] = '\0';
				return true;
			}
		}
		line = *eol ? eol + 1 : NULL;
	}
	return false;
}

/* copies a mountinfo field, decoding its octal escapes (\040 for a space) */
static bool
copy_field(const char *s, size_t n, char *out, size_t len)
{
	size_t		o = 0;
	size_t		i;

	for (i = 0; i < n; i++)
	{
		char		c = s[i];

		if (c == '\\' && i + 3 < n &&
			s[i + 1] >= '0' && s[i + 1] <= '3' &&
			s[i + 2] >= '0' && s[i + 2] <= '7' &&
			s[i + 3] >= '0' && s[i + 3] <= '7')
		{
			c = (char) ((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
			i += 3;
		}
		if (o + 1 >= len)
			return false;
		out[o++] = c;
	}
	out[o] = '\0';
	return true;
}

/* the space-separated fields of one line, at most max of them */
static int
split_fields(const char *line, const char *eol, const char **f, size_t *flen, int max)
{
	int			n = 0;
	const char *p = line;

	while (p < eol && n < max)
	{
		const char *e;

		while (p < eol && *p == ' ')
			p++;
		if (p >= eol)
			break;
		e = p;
		while (e < eol && *e != ' ')
			e++;
		f[n] = p;
		flen[n] = e - p;
		n++;
		p = e;
	}
	return n;
}

bool
gs_mem_cgroup_mount(const char *mountinfo, const char *controller,
					char *mountpoint, size_t mlen, char *mountroot, size_t rlen)
{
	const char *line = mountinfo;

	while (line && *line)
	{
		const char *eol = strchr(line, '\n');
		const char *f[32];
		size_t		flen[32];
		int			n,
					sep;

		if (!eol)
			eol = line + strlen(line);
		n = split_fields(line, eol, f, flen, 32);
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [TAGS...] - FSTYPE SOURCE SUPER */
		for (sep = 6; sep < n; sep++)
			if (flen[sep] == 1 && f[sep][0] == '-')
				break;
		if (sep + 1 < n)
		{
			const char *fstype = f[sep + 1];
			size_t		tlen = flen[sep + 1];
			bool		match;

			if (controller == NULL)
				match = (tlen == 7 && memcmp(fstype, "cgroup2", 7) == 0);
			else
				match = (tlen == 6 && memcmp(fstype, "cgroup", 6) == 0 &&
						 sep + 3 < n &&
						 list_has(f[sep + 3], flen[sep + 3], controller));
			if (match &&
				copy_field(f[3], flen[3], mountroot, rlen) &&
				copy_field(f[4], flen[4], mountpoint, mlen))
				return true;
		}
		line = *eol ? eol + 1 : NULL;
	}
	return false;
}

/* a small file's contents, NUL-terminated, or NULL; the caller frees it */
static char *
read_small_file(const char *root, const char *name)
{
	char		path[1024];
	FILE	   *f;
	char	   *buf;
	size_t		n;

	if (snprintf(path, sizeof(path), "%s%s", root, name) >= (int) sizeof(path))
		return NULL;
	f = fopen(path, "r");
	if (f == NULL)
		return NULL;
	buf = malloc(GS_MEM_FILE_MAX + 1);
	if (buf == NULL)
	{
		fclose(f);
		return NULL;
	}
	n = fread(buf, 1, GS_MEM_FILE_MAX, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

/*
 * The group's directory under the mount, relative to root: the mount point
 * followed by the group's path below the mount's root.
 */
static bool
group_dir(const char *cgpath, const char *mountpoint, const char *mountroot,
		  char *dir, size_t len)
{
	size_t		rl = strlen(mountroot);
	const char *rest = cgpath;

	if (strcmp(mountroot, "/") != 0 && strncmp(cgpath, mountroot, rl) == 0 &&
		(cgpath[rl] == '/' || cgpath[rl] == '\0'))
		rest = cgpath + rl;
	else if (strcmp(mountroot, "/") != 0)
		rest = "";				/* the mount is the group (a container's view) */
	if (strcmp(rest, "/") == 0)
		rest = "";
	return snprintf(dir, len, "%s%s", mountpoint, rest) < (int) len;
}

/* the limit in file dir/name, if there is one */
static bool
read_limit(const char *root, const char *dir, const char *name, uint64_t *bytes)
{
	char		path[1024];
	char	   *text;
	bool		ok;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int) sizeof(path))
		return false;
	text = read_small_file(root, path);
	if (text == NULL)
		return false;
	ok = gs_mem_parse_limit(text, bytes);
	free(text);
	return ok;
}

static void
set_limit(GsMemLimit *out, GsMemSource source, uint64_t bytes,
		  const char *dir, const char *name)
{
	if (out->source != GS_MEM_NONE && out->bytes <= bytes)
		return;
	out->source = source;
	out->bytes = bytes;
	snprintf(out->path, sizeof(out->path), "%s/%s", dir, name);
}

/* v2: memory.max of the group and of every ancestor below the mount */
static void
limit_v2(const char *root, const char *proc_cgroup, const char *mountinfo,
		 GsMemLimit *out)
{
	char		cgpath[512],
				mpoint[512],
				mroot[512],
				dir[1024];
	size_t		mlen;

	if (!gs_mem_cgroup_path(proc_cgroup, NULL, cgpath, sizeof(cgpath)) ||
		!gs_mem_cgroup_mount(mountinfo, NULL, mpoint, sizeof(mpoint),
							 mroot, sizeof(mroot)) ||
		!group_dir(cgpath, mpoint, mroot, dir, sizeof(dir)))
		return;
	mlen = strlen(mpoint);
	for (;;)
	{
		uint64_t	bytes;
		char	   *slash;

		if (read_limit(root, dir, "memory.max", &bytes))
			set_limit(out, GS_MEM_CGROUP_V2, bytes, dir, "memory.max");
		if (strlen(dir) <= mlen)
			break;
		slash = strrchr(dir, '/');
		if (slash == NULL || (size_t) (slash - dir) < mlen)
			break;
		*slash = '\0';
	}
}

/* v1: hierarchical_memory_limit in memory.stat, else memory.limit_in_bytes */
static void
limit_v1(const char *root, const char *proc_cgroup, const char *mountinfo,
		 GsMemLimit *out)
{
	char		cgpath[512],
				mpoint[512],
				mroot[512],
				dir[1024],
				name[1100];
	char	   *stat;
	uint64_t	bytes;

	if (!gs_mem_cgroup_path(proc_cgroup, "memory", cgpath, sizeof(cgpath)) ||
		!gs_mem_cgroup_mount(mountinfo, "memory", mpoint, sizeof(mpoint),
							 mroot, sizeof(mroot)) ||
		!group_dir(cgpath, mpoint, mroot, dir, sizeof(dir)))
		return;
	snprintf(name, sizeof(name), "%s/memory.stat", dir);
	stat = read_small_file(root, name);
	if (stat)
	{
		const char *key = "hierarchical_memory_limit ";
		const char *p = strstr(stat, key);

		if (p && (p == stat || p[-1] == '\n'))
		{
			char		num[32];
			size_t		n = strcspn(p + strlen(key), "\n");

			if (n < sizeof(num))
			{
				memcpy(num, p + strlen(key), n);
				num[n] = '\0';
				if (gs_mem_parse_limit(num, &bytes))
					set_limit(out, GS_MEM_CGROUP_V1, bytes, dir, "memory.stat");
			}
		}
		free(stat);
	}
	if (read_limit(root, dir, "memory.limit_in_bytes", &bytes))
		set_limit(out, GS_MEM_CGROUP_V1, bytes, dir, "memory.limit_in_bytes");
}

void
gs_mem_cgroup_limit(const char *root, GsMemLimit *out)
{
	char	   *proc_cgroup = read_small_file(root, "/proc/self/cgroup");
	char	   *mountinfo = read_small_file(root, "/proc/self/mountinfo");

	memset(out, 0, sizeof(GsMemLimit));
	out->source = GS_MEM_NONE;
	if (proc_cgroup && mountinfo)
	{
		limit_v2(root, proc_cgroup, mountinfo, out);
		if (out->source == GS_MEM_NONE)
			limit_v1(root, proc_cgroup, mountinfo, out);
	}
	free(proc_cgroup);
	free(mountinfo);
}

const char *
gs_mem_source_name(GsMemSource source)
{
	switch (source)
	{
		case GS_MEM_CGROUP_V2:
			return "cgroup v2";
		case GS_MEM_CGROUP_V1:
			return "cgroup v1";
		case GS_MEM_NONE:
			break;
	}
	return "none";
}
